--[[
  Moves the caller's cursor forward to an event (mark_event_read): that event and every earlier
  one count as read. Never moves it back. A cursor left from a history that went back
  (includes/unreadCount cursorAt) moves to any event of the new history after it.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the reader (required)
  ARGV[7]      event id

  Returns {moved, cursor}; invalid_request when the id is ahead of the feed, not_found when it is
  not a position of this feed (its ms part disagrees with the events around it).
  Publishes {k = 'event', op = 'read', agent, id} when the cursor moved.
  Effects  reads
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('markRead')
if not R then return early end
local id = ARGV[7]
local seq = seqOf(id)
local m = redis.call('HMGET', R.k.meta, 'eseq', 'lastms')
local head = tonumber(m[1] or '0')
if seq > head then
  return fail('invalid_request', 'event_id: ' .. id .. ' is ahead of the feed; the newest event is ' ..
    (headEventId(R) or 'none (the feed is empty)'), { field = 'event_id', newest = headEventId(R) })
end
-- A cursor is used both as a seq (unread counts) and as a stream position (XRANGE): accept only an
-- id where the two agree, i.e. the entries at or before it have seq <= its seq and those after it
-- have greater ones. Every real id (even of a deleted or trimmed event) passes.
local below = redis.call('XREVRANGE', R.k.events, id, '-', 'COUNT', 1)
local above = redis.call('XRANGE', R.k.events, '(' .. id, '+', 'COUNT', 1)
if (below[1] and seqOf(below[1][1]) > seq) or (above[1] and seqOf(above[1][1]) <= seq) then
  return fail('not_found', 'event_id: ' .. id .. ' is not an event of this room', { field = 'event_id' })
end

-- A cursor of a history that went back stands before the new history's events (cursorAt).
local cur = redis.call('HGET', R.k.cursors, R.agent)
if cur and cursorAt(R, cur, head, tonumber(m[2] or '0')) >= seq then
  return finish(R, { moved = false, cursor = cur })
end
redis.call('HSET', R.k.cursors, R.agent, id)
dirty(R, R.k.cursors)
ownAfter(R, R.agent, seq)
notify(R, { k = 'event', op = 'read', agent = R.agent, id = id })
return finish(R, { moved = true, cursor = id })
