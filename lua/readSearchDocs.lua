--[[
  The script every search runs first (src/search): the room's content position (meta.cseq,
  bumped by every notice that changes tasks, context or events: includes/notify), the
  Meilisearch indexer's position in the room, and the tasks and context entries named (the
  records a search marked dirty from their notices), long texts cut to a byte cap so Redis never
  sends more than search keeps. Counts as activity and gives the caller's unread count, like
  every room tool. (A whole room is read outside scripts, in chunks: src/search/records.ts.)

  What one call reads is bounded by bytes: a record's stored size is known before it is read
  (HSTRLEN), and the call stops before the record that would take it past ARGV[9] (it always
  reads at least one). After a bulk edit the caller reads the rest in further calls, so no call
  copies tens of MB into Lua strings and holds Redis meanwhile.

  When the call counts as activity, the search manifest's TTL is refreshed too: the manifest is
  not among the room's fixed keys that every tool call refreshes (includes/finish), and a
  manifest gone while its room lives would make the Meilisearch indexer start the room over.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1] the room's search manifest (hash; the Meilisearch indexer's position, see
               src/search/meili/indexer.ts): its pos and room fields are read
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      byte cap of task notes and context bodies
  ARGV[8]      msgpack {t = [task ids], c = ["<type>/<key>"]}
  ARGV[9]      stored bytes one call reads at most (past its first record)

  Returns {cseq, created_at, trim, ipos, iroom (the manifest's pos and room, '' when unset),
  sections = {tasks, context}, done = {t, c}} and rows: tasks as (record, notes cut) pairs, then
  context as (metadata, current body cut) pairs. Tasks and entries named that do not exist are
  left out. `done` counts the ids of each list handled (read or found missing), in order: the
  ones after them are left for another call. not_found when the room is gone.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('readSearchDocs')
if not R then return early end
local manifest, cap = KEYS[ROOM_KEY_COUNT + 1], tonumber(ARGV[7])
local want, budget = cmsgpack.unpack(ARGV[8]), tonumber(ARGV[9])

local meta = redis.call('HMGET', R.k.meta, 'cseq', 'created_at', 'trim')
local indexed = redis.call('HMGET', manifest, 'pos', 'room')
local res = {
  cseq = tonumber(meta[1] or '0'), created_at = tonumber(meta[2] or '0'), trim = tonumber(meta[3] or '0'),
  ipos = indexed[1] or '', iroom = indexed[2] or '',
}
if R.touch then redis.call('PEXPIRE', manifest, R.ttl) end

local rows = {}
local sections = { tasks = 0, context = 0 }
local done = { t = 0, c = 0 }
local used = 0
-- Whether a record of `size` stored bytes still fits this call (the first one always does).
local function fits(size)
  if used > 0 and used + size > budget then return false end
  used = used + size
  return true
end

local full = false
for _, id in ipairs(want.t or {}) do
  if not fits(redis.call('HSTRLEN', R.k.tasks, id) + redis.call('HSTRLEN', R.k.notes, id)) then
    full = true
    break
  end
  local raw = redis.call('HGET', R.k.tasks, id)
  if raw then
    rows[#rows + 1] = raw
    rows[#rows + 1] = string.sub(redis.call('HGET', R.k.notes, id) or '', 1, cap)
    sections.tasks = sections.tasks + 1
  end
  done.t = done.t + 1
end
if not full then
  for _, field in ipairs(want.c or {}) do
    local raw = redis.call('HGET', R.k.ctx, field)
    local body = raw and field .. '#' .. cmsgpack.unpack(raw).version
    if not fits(body and string.len(raw) + redis.call('HSTRLEN', R.k.ctxv, body) or 0) then break end
    if raw then
      local v = redis.call('HGET', R.k.ctxv, body)
      rows[#rows + 1] = raw
      rows[#rows + 1] = v and string.sub(cmsgpack.unpack(v).body or '', 1, cap) or ''
      sections.context = sections.context + 1
    end
    done.c = done.c + 1
  end
end
res.sections = sections
res.done = done
return finishRows(R, res, rows)
