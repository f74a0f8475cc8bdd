--[[
  Deletes an event (delete_event); only its author may. Its seq goes into evdel so unread counts
  stay one subtraction.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the caller (required)
  ARGV[7]      event id

  Returns {deleted = id}; not_found (unknown, deleted or trimmed), forbidden (not the author).
  Publishes {k = 'event', op = 'deleted', id}.
  Effects  deleted-events
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('deleteEvent')
if not R then return early end
local id = ARGV[7]
local ev, missing = requireEvent(R, id, 'event_id')
if not ev then return missing end
if ev.agent_id ~= R.agent then
  return fail('forbidden', 'event_id: event ' .. id .. ' was posted by ' .. ev.agent_id
    .. '; only its author may delete it',
    { field = 'event_id', author = ev.agent_id })
end
local seq = seqOf(id)
redis.call('XDEL', R.k.events, id)
redis.call('ZADD', R.k.evdel, seq, seq)
-- Counted once: as deleted, no longer as the author's own (includes/unreadCount).
ownAfter(R, R.agent, 0, seq)
dirty(R, R.k.events)
dirty(R, R.k.evdel)
notify(R, { k = 'event', op = 'deleted', id = id })
return finish(R, { deleted = id })
