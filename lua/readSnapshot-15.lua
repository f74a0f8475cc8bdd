--[[
  A dashboard's view of a room in one read: the room record, the whole plan, context metadata,
  the latest events, each agent's read position, presence, live locks, vars and reviews. Does not count as room activity
  when the caller passes touch = '0' (a dashboard left open must not keep a room alive).

  KEYS[1..15]  the room's fixed keys
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      presence TTL (ms)
  ARGV[8]      how long offline agents stay listed (ms)
  ARGV[9]      how many of the latest events
  ARGV[10]     most presence entries per group

  Returns {room = meta fields, sections = {tasks, context, events, vars, reviews, locks},
  online = list of {agent, ms}, offline = the same, cursors = {agent, event id, agent, event id,
  ...} (the last event each agent has read), now} and rows in section order: tasks (raw),
  context metadata (raw), events (id, raw) pairs oldest first, vars (name, raw) pairs, reviews
  (raw), locks (name, raw) pairs of live locks.
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('readSnapshot')
if not R then return early end
local ttl, forget, eventCount, max = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])

local flat = redis.call('HGETALL', R.k.meta)
local meta = {}
for i = 1, #flat, 2 do
  if string.sub(flat[i], 1, 2) ~= 'd:' then meta[flat[i]] = flat[i + 1] end
end

local rows, sections = {}, {}
local function add(list)
  for _, v in ipairs(list) do rows[#rows + 1] = v end
  return #list
end
sections.tasks = add(redis.call('HVALS', R.k.tasks))
sections.context = add(redis.call('HVALS', R.k.ctx))
local latest = redis.call('XREVRANGE', R.k.events, '+', '-', 'COUNT', eventCount)
for i = #latest, 1, -1 do
  rows[#rows + 1] = latest[i][1]
  rows[#rows + 1] = latest[i][2][2]
end
sections.events = #latest
sections.vars = add(redis.call('HGETALL', R.k.vars)) / 2
sections.reviews = add(redis.call('HVALS', R.k.reviews))
local locks = redis.call('HGETALL', R.k.locks)
local live = 0
for i = 1, #locks, 2 do
  if cmsgpack.unpack(locks[i + 1]).expires_at > R.now then
    rows[#rows + 1] = locks[i]
    rows[#rows + 1] = locks[i + 1]
    live = live + 1
  end
end
sections.locks = live

local function group(hi, lo)
  local z = redis.call('ZREVRANGEBYSCORE', R.k.presence, hi, lo, 'WITHSCORES', 'LIMIT', 0, max)
  local out = {}
  for i = 1, #z, 2 do out[#out + 1] = { z[i], tonumber(z[i + 1]) } end
  return out
end
local since = R.now - ttl
return finishRows(R, {
  room = meta, sections = sections, now = R.now,
  online = group('+inf', since), offline = group('(' .. since, R.now - forget),
  cursors = redis.call('HGETALL', R.k.cursors),
}, rows)
