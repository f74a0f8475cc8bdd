--[[
  The script every search runs first (src/search): the room's content position (meta.cseq,
  bumped by every notice that changes tasks, context or events: includes/notify), the
  Meilisearch indexer's position in the room, and the tasks and context entries named (the
  records a search marked dirty from their notices), long texts cut to a byte cap so Redis never
  sends more than search keeps. Counts as activity and gives the caller's unread count, like
  every room tool. (A whole room is read outside scripts, in chunks: src/search/records.ts.)

  KEYS[1..15]  the room's fixed keys
  KEYS[16]     the room's search manifest (hash; the Meilisearch indexer's position, see
               src/search/meili/indexer.ts): its pos and room fields are read
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      byte cap of task notes and context bodies
  ARGV[8]      msgpack {t = [task ids], c = ["<type>/<key>"]}

  Returns {cseq, created_at, trim, ipos, iroom (the manifest's pos and room, '' when unset),
  sections = {tasks, context}} and rows: tasks as (record, notes cut) pairs, then context as
  (metadata, current body cut) pairs. Tasks and entries named that do not exist are left out.
  not_found when the room is gone.
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('readSearchDocs')
if not R then return early end
local cap, want = tonumber(ARGV[7]), cmsgpack.unpack(ARGV[8])

local meta = redis.call('HMGET', R.k.meta, 'cseq', 'created_at', 'trim')
local indexed = redis.call('HMGET', KEYS[16], 'pos', 'room')
local res = {
  cseq = tonumber(meta[1] or '0'), created_at = tonumber(meta[2] or '0'), trim = tonumber(meta[3] or '0'),
  ipos = indexed[1] or '', iroom = indexed[2] or '',
}

local rows = {}
local sections = { tasks = 0, context = 0 }
for _, id in ipairs(want.t or {}) do
  local raw = redis.call('HGET', R.k.tasks, id)
  if raw then
    rows[#rows + 1] = raw
    rows[#rows + 1] = string.sub(redis.call('HGET', R.k.notes, id) or '', 1, cap)
    sections.tasks = sections.tasks + 1
  end
end
for _, field in ipairs(want.c or {}) do
  local raw = redis.call('HGET', R.k.ctx, field)
  if raw then
    local v = redis.call('HGET', R.k.ctxv, field .. '#' .. cmsgpack.unpack(raw).version)
    rows[#rows + 1] = raw
    rows[#rows + 1] = v and string.sub(cmsgpack.unpack(v).body or '', 1, cap) or ''
    sections.context = sections.context + 1
  end
end
res.sections = sections
return finishRows(R, res, rows)
