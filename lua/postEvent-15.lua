--[[
  Posts an event to the room's feed (post_event, reply_to_event).

  KEYS[1..15]  the room's fixed keys
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the author
  ARGV[7]      msgpack {type, text, data? (compact JSON text), reply_to?}
  ARGV[8]      events kept per room (older ones are trimmed)

  Returns {event = {id, type, agent_id, text, data?, reply_to?, created_at}};
  not_found when reply_to is not a retained event.
  Publishes {k = 'event', op = 'posted', id, type, event}: `event` is the stored record with its id
  (as returned), so a follower next in line delivers it without reading the stream.
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('postEvent')
if not R then return early end
local input = cmsgpack.unpack(ARGV[7])
local retained = tonumber(ARGV[8])

if input.reply_to then
  local parent, missing = requireEvent(R, input.reply_to, 'reply_to')
  if not parent then return missing end
end

local ev = { type = input.type, agent_id = R.agent, text = input.text, data = input.data, reply_to = input.reply_to }
local id = appendEvent(R, ev, retained)
notify(R, { k = 'event', op = 'posted', id = id, type = ev.type, event = ev })
return finish(R, { event = ev })
