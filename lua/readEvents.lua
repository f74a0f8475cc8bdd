--[[
  Reads a page of the feed without consuming anything (read_events). Pages by id: the latest
  events, the ones after an id (forward) or before an id (back). Always bounded: a page examines
  at most ARGV[11] entries, so a rare `type` may give a short (even empty) page with an id to
  continue from.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      'latest', 'after' or 'before'
  ARGV[8]      the boundary id for 'after' / 'before' (exclusive); '' for 'latest'
  ARGV[9]      most events to return
  ARGV[10]     only events of this type; '' for all
  ARGV[11]     most entries to examine

  Returns {count, prev?, next?} and rows [id, d, id, d, ...] oldest first. prev: pass as `before` for
  older events (present when older entries exist); next: pass as `after` for newer ones (present
  when newer entries exist).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('readEvents')
if not R then return early end
local mode, boundary, limit, wanted, cap = ARGV[7], ARGV[8], tonumber(ARGV[9]), ARGV[10], tonumber(ARGV[11])
local forward = mode == 'after'

-- One step of the scan in the page's direction, from an (exclusive or open) position.
local function step(pos, count)
  if forward then return redis.call('XRANGE', R.k.events, pos, '+', 'COUNT', count) end
  return redis.call('XREVRANGE', R.k.events, pos, '-', 'COUNT', count)
end
local function existsAfter(id) return #redis.call('XRANGE', R.k.events, '(' .. id, '+', 'COUNT', 1) > 0 end
local function existsBefore(id) return #redis.call('XREVRANGE', R.k.events, '(' .. id, '-', 'COUNT', 1) > 0 end

local pos = mode == 'latest' and '+' or ('(' .. boundary)
local batch = limit
if wanted ~= '' then batch = math.min(cap, math.max(limit, 100)) end

local picked, examined, first, edge = {}, 0, nil, nil
-- Nothing precedes 0-0 (and Redis refuses it as an exclusive end).
local done = mode == 'before' and string.match(boundary, '^0+%-0+$') ~= nil
while not done and #picked < limit and examined < cap do
  local want = math.min(batch, cap - examined)
  local got = step(pos, want)
  for _, e in ipairs(got) do
    examined = examined + 1
    first = first or e[1]
    edge = e[1]
    if wanted == '' or cmsgpack.unpack(e[2][2]).type == wanted then
      picked[#picked + 1] = e
      if #picked == limit then break end
    end
  end
  if #got < want then break end
  pos = '(' .. edge
end

-- first/edge bound the examined range: edge is where this page stopped, first where it began.
local res = { count = #picked }
if edge then
  if forward then
    if existsAfter(edge) then res.next = edge end
    if existsBefore(first) then res.prev = first end
  else
    if existsBefore(edge) then res.prev = edge end
    if existsAfter(first) then res.next = first end
  end
end

local rows = {}
local from, to, by = 1, #picked, 1
if not forward then from, to, by = #picked, 1, -1 end
for i = from, to, by do
  rows[#rows + 1] = picked[i][1]
  rows[#rows + 1] = picked[i][2][2]
end
return finishRows(R, res, rows)
