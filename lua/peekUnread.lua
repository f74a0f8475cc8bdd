--[[
  The caller's unread count, consuming nothing: the waiter of wait_for_events checks it when a
  notice arrives, before it consumes.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the agent (required)

  Returns {unread}.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('peekUnread')
if not R then return early end
return finish(R, {})
