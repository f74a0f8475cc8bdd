--[[
  Posts an event to the room's feed (post_event, reply_to_event).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the author
  ARGV[7]      type
  ARGV[8]      text
  ARGV[9]      data as compact JSON text, '' = none
  ARGV[10]     reply_to event id, '' = none
  ARGV[11]     events kept per room (older ones are trimmed)
  ARGV[12]     the credential that posts, as JSON text kept as it is (`via`), '' = none
  (Plain strings, not one msgpack argument: a binary argument switches ioredis to its buffer
  path for the whole pipeline it joins, which cost the node ~10% CPU per call; BENCHMARKS.md.)

  Returns {event = {id, type, agent_id, text, data?, reply_to?, via?, created_at}};
  not_found when reply_to is not a retained event.
  Publishes {k = 'event', op = 'posted', id, type, event}: `event` is the stored record with its id
  (as returned), so a follower next in line delivers it without reading the stream.
  Effects  events, reads
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('postEvent')
if not R then return early end
local input = { type = ARGV[7], text = ARGV[8] }
if ARGV[9] ~= '' then input.data = ARGV[9] end
if ARGV[10] ~= '' then input.reply_to = ARGV[10] end
local retained = tonumber(ARGV[11])
R.via = ARGV[12]

if input.reply_to then
  local parent, missing = requireEvent(R, input.reply_to, 'reply_to')
  if not parent then return missing end
end

local ev = { type = input.type, agent_id = R.agent, text = input.text, data = input.data, reply_to = input.reply_to }
local id = appendEvent(R, ev, retained)
notify(R, { k = 'event', op = 'posted', id = id, type = ev.type, event = ev })
return finish(R, { event = ev })
