--[[
  The picture of a room's plan (the dashboard's room page), in one bounded read that does not count
  as room activity when the caller passes touch = '0': the open tasks (in review, then in progress,
  then to do, each band in the board's order) up to a cap, the open dependencies of those that the
  cap left out, and the tasks done within a span up to now. The agents' events of the span come
  from readNeeds, which reads the latest events anyway: reading them twice would double the
  page's dearest part (each event's record copied into Lua and decoded).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      most open tasks returned
  ARGV[8]      the span (ms): tasks done within it, up to now
  ARGV[9]      most tasks done returned (most recently done first)

  Returns {open = open tasks in the room, tasks = open tasks in the rows, done = done tasks in
  the rows, outside = ids of open tasks left out that a returned task depends on, now} and rows:
  the open tasks (raw), then the done ones (raw).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('readGraph')
if not R then return early end
local most, doneCount = tonumber(ARGV[7]), tonumber(ARGV[9])
local since = R.now - tonumber(ARGV[8])
planIndexes(R)

local band = function(n) return string.format('%.0f', n * BOARD_BAND) end
local rows, shown = {}, {}
local open = redis.call('ZCOUNT', R.k.board, band(0), '(' .. band(3))
-- In review and in progress first: the work under way is never the part the cap leaves out.
for _, b in ipairs({ 2, 1, 0 }) do
  local left = most - #rows
  if left <= 0 then break end
  local slots = redis.call('ZRANGEBYSCORE', R.k.board, band(b), '(' .. band(b + 1), 'LIMIT', 0, left)
  if #slots > 0 then
    local ids = {}
    for i, s in ipairs(slots) do ids[i] = idOfSlot(s) end
    for i, raw in ipairs(redis.call('HMGET', R.k.tasks, unpack(ids))) do
      if raw then
        rows[#rows + 1] = raw
        shown[ids[i]] = cmsgpack.unpack(raw)
      end
    end
  end
end
local taskRowCount = #rows

-- Dependencies of the shown tasks that are not shown: those still open were left out by the cap.
local missing, seen = {}, {}
for _, t in pairs(shown) do
  for _, d in ipairs(t.depends_on or {}) do
    if not shown[d] and not seen[d] then
      seen[d] = true
      missing[#missing + 1] = d
    end
  end
end
local outside = {}
if #missing > 0 then
  local slots = {}
  for i, d in ipairs(missing) do slots[i] = slotOf(d) end
  local scores = inSlices('ZMSCORE', R.k.board, slots)
  for i, sc in ipairs(scores) do
    if sc and tonumber(sc) < 3 * BOARD_BAND then outside[#outside + 1] = missing[i] end
  end
end

local doneFrom = string.format('%.0f', 3 * BOARD_BAND + since)
local done = redis.call('ZREVRANGEBYSCORE', R.k.board, '(' .. band(4), doneFrom, 'LIMIT', 0, doneCount)
local doneRows = 0
if #done > 0 then
  local ids = {}
  for i, s in ipairs(done) do ids[i] = idOfSlot(s) end
  for _, raw in ipairs(redis.call('HMGET', R.k.tasks, unpack(ids))) do
    if raw then
      rows[#rows + 1] = raw
      doneRows = doneRows + 1
    end
  end
end

return finishRows(R, {
  open = open, tasks = taskRowCount, done = doneRows, outside = outside, now = R.now,
}, rows)
