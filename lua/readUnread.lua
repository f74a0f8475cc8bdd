--[[
  Consumes the caller's unread events (get_unread_events, and wait_for_events once woken): returns
  up to ARGV[7] events after its cursor, oldest first, and moves the cursor to the last one, so a
  backlog drains over several calls and two concurrent calls never return the same event.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the reader (required)
  ARGV[7]      most events to return

  Returns {events = [{id, type, agent_id, text, data?, reply_to?, created_at}], remaining,
  cursor_reset? = {lost, rewound?, reset_to?}, cursor?, last_event_ms?}; see consumeEvents in
  includes/events. The events travel decoded inside the reply (not as rows) because a consuming
  read is a mutation: a retry with the same idempotency key must get the same events back, and
  only the reply is stored.
  Publishes {k = 'event', op = 'read', agent, id = new cursor} when the cursor moved.
  Effects  reads
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('readUnread')
if not R then return early end
-- The limit stays the string it came as: it only goes back to Redis (XRANGE COUNT).
local list, info = consumeEvents(R, R.agent, ARGV[7])
local res = { events = list, remaining = info.remaining, cursor_reset = info.cursor_reset,
  last_event_ms = info.last_event_ms }
if info.moved then
  res.cursor = redis.call('HGET', R.k.cursors, R.agent)
  notify(R, { k = 'event', op = 'read', agent = R.agent, id = res.cursor })
end
return finish(R, res)
