--[[
  Who has read an event (get_event_reads): the agents whose cursor is at or past it, derived from
  the cursors (nothing is stored twice), and the event's author.

  KEYS[1..17]  the room's fixed keys
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      event id

  Returns {event_id, author, read_by = [agent] (sorted)}; not_found for an unknown, deleted or
  trimmed event.
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
local readBy = {}
local flat = redis.call('HGETALL', R.k.cursors)
for i = 1, #flat, 2 do
  if seqOf(flat[i + 1]) >= seq then readBy[#readBy + 1] = flat[i] end
end
table.sort(readBy)
return finish(R, { event_id = id, author = ev.agent_id, read_by = readBy })
