--[[
  Creates a room, with a template's starter tasks (and the plan's indexes, includes/board) and
  context entries.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      msgpack room record {id, team, name, template, created_by}
  ARGV[8]      msgpack starter content {tasks = [task], notes = {id = text}, context = [{meta, body}]}

  Returns {room = record}; conflict when the room exists.
  Publishes {k = 'room', op = 'created'}.
  Effects  room, tasks, context
]]
--- @include "includes/roomKeys"
--- @include "includes/fail"
--- @include "includes/board"
--- @include "includes/finish"

local k = roomKeys()
if redis.call('EXISTS', k.meta) == 1 then
  -- A retry of this very creation (same idempotency key) gets the first reply.
  local prev = ARGV[2] ~= '' and redis.call('HGET', k.idem, ARGV[2])
  if prev then return idemReplay('createRoom', '', ARGV[2], prev) end
  return fail('conflict', 'a room with this id already exists in this team', { field = 'room_id' })
end
-- A room whose meta key expired may leave other keys that expire a moment later: start clean.
for i = 1, ROOM_KEY_COUNT - 1 do redis.call('DEL', KEYS[i]) end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local room = cmsgpack.unpack(ARGV[7])
local starter = cmsgpack.unpack(ARGV[8])

-- The fields nearly every script reads come first: a small hash is a listpack, and a field is
-- found by scanning from its start.
redis.call('HSET', k.meta, 'created_at', now, 'touched', now, 'eseq', 0, 'trim', 0, 'lastms', 0, 'cseq', 0,
  'id', room.id, 'team', room.team, 'name', room.name, 'template', room.template,
  'created_by', room.created_by, 'epoch', now, 'tseq', 0, 'rseq', 0, 'fence', 0)

local R = {
  k = k, op = 'createRoom', agent = '', idem = ARGV[2], ttl = ARGV[3],
  touchEvery = tonumber(ARGV[4]), touch = true, idemTtl = tonumber(ARGV[6]), now = now, touchedAt = now,
  dirty = {}, mutated = true,
}
for _, task in ipairs(starter.tasks) do
  task.created_at = now
  task.updated_at = now
  redis.call('HSET', k.tasks, task.id, cmsgpack.pack(task))
  redis.call('ZADD', k.board, boardScore(task), slotOf(task.id))
  for _, d in ipairs(task.depends_on) do redis.call('ZADD', k.deps, 0, edgeOf(d, task.id)) end
end
redis.call('HSET', k.meta, 'tseq', #starter.tasks)
for id, text in pairs(starter.notes) do redis.call('HSET', k.notes, id, text) end
for _, entry in ipairs(starter.context) do
  local m = entry.meta
  m.created_at = now
  m.updated_at = now
  m.hist = { { v = 1, by = m.updated_by, at = now, size = m.size } }
  local field = m.type .. '/' .. m.key
  redis.call('HSET', k.ctx, field, cmsgpack.pack(m))
  redis.call('HSET', k.ctxv, field .. '#1', cmsgpack.pack({ body = entry.body, by = m.updated_by, at = now }))
end

redis.call('SPUBLISH', k.channel, cmsgpack.pack({ k = 'room', op = 'created', at = now }))
room.created_at = now
R.touchEvery = 0
return finish(R, { room = room })
