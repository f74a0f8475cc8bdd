--[[
  Who has read an event (get_event_reads): the agents whose cursor is at or past it, derived from
  the cursors (nothing is stored twice), and the event's author.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      event id

  Returns {event_id, author, read_by = [agent] (sorted)}; not_found for an unknown, deleted or
  trimmed event.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('getEventReads')
if not R then return early end
local id = ARGV[7]
local ev, missing = requireEvent(R, id, 'event_id')
if not ev then return missing end
local seq = seqOf(id)
local m = redis.call('HMGET', R.k.meta, 'eseq', 'lastms')
local head, lastms = tonumber(m[1] or '0'), tonumber(m[2] or '0')
local readBy = {}
local flat = redis.call('HGETALL', R.k.cursors)
for i = 1, #flat, 2 do
  -- readUpTo (cursorAt): a cursor of a history that went back has read none of the new history.
  -- The seq test first spares the XRANGE of cursors that are behind the event anyway.
  if seqOf(flat[i + 1]) >= seq and readUpTo(R, flat[i + 1], head, lastms) >= seq then readBy[#readBy + 1] = flat[i] end
end
table.sort(readBy)
return finish(R, { event_id = id, author = ev.agent_id, read_by = readBy })
