--[[
  Reads the events of a room that the webhook fan-out has not taken yet (src/webhooks/fanout.ts).
  The room's event stream is the outbox: an event is pending for webhooks from the moment it is
  stored, with no second write that a crash could lose. Consumes nothing; not room activity (the
  dispatcher passes touch = 0).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); no agent
  ARGV[7]      position: id of the last event already fanned out ('' = none)
  ARGV[8]      floor (ms): events created before it are wanted by no webhook
  ARGV[9]      most events to read

  Returns {head? = id of the newest event (nil: none), lost? = events trimmed away after the
  position before they were fanned out (nil when none), lost_before? = with lost, a time (ms) no
  lost event was created after: the oldest retained event's, or the newest event's when none is
  retained} and the events
  as rows: id, stored record, id, stored record, ... oldest first; not_found when the room is
  gone. Trimmed events that all came before the floor are wanted by no webhook: not lost.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('readOutbox')
if not R then return early end
local pos, floor, count = ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])
local start = string.format('%d-0', floor)
if pos ~= '' and tonumber(string.match(pos, '^(%d+)%-')) >= floor then start = '(' .. pos end
local rows = {}
for _, e in ipairs(redis.call('XRANGE', R.k.events, start, '+', 'COUNT', count)) do
  rows[#rows + 1] = e[1]
  rows[#rows + 1] = e[2][2]
end
local res = { head = headEventId(R) }
local trim = tonumber(redis.call('HGET', R.k.meta, 'trim') or '0')
if pos ~= '' and seqOf(pos) < trim then
  local oldest = redis.call('XRANGE', R.k.events, '-', '+', 'COUNT', 1)[1]
  local before = tonumber(string.match(oldest and oldest[1] or (res.head or '0-0'), '^(%d+)%-'))
  if before >= floor then
    res.lost = trim - seqOf(pos)
    res.lost_before = before
  end
end
return finishRows(R, res, rows)
