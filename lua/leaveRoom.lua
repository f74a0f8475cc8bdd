--[[
  The caller leaves the room (leave_room): its presence is cleared and the service posts an
  `agent_left` event by it, whatever its presence was (online, offline, or never seen: an agent
  that joined without a heartbeat still says it is gone). Its file reservations are released
  (includes/reservations).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1] the room's reservations hash (store.keys.reservations)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the agent (required)
  ARGV[7]      events kept per room
  ARGV[8]      presence TTL (ms), to tell whether it was online
  ARGV[9]      the credential that leaves, as JSON text kept on the event (`via`), '' = none

  Returns {left = true, event, was_present, was_online, released}: was_present whether it had a
  presence to clear; released lists the patterns of the reservations it released.
  Publishes {k = 'presence', op = 'offline', agent, event_id, type = 'agent_left', event}: one notice
  that both clears presence and announces the new event (event_id, and the record itself as
  `event`, as postEvent does) to feed listeners; and {k = 'reservation', op = 'released', agent,
  patterns} when it released reservations.
  Effects  events, reads, presence, reservations
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/reservations"
--- @include "includes/finish"

local R, early = openRoom('leaveRoom')
if not R then return early end
local retained, ttl = tonumber(ARGV[7]), tonumber(ARGV[8])
R.via = ARGV[9]
local released = releaseAllOf(R, KEYS[ROOM_KEY_COUNT + 1], R.agent)
if #released > 0 then
  reservationsChanged(R, KEYS[ROOM_KEY_COUNT + 1])
  notify(R, { k = 'reservation', op = 'released', agent = R.agent, patterns = released })
end
local prev = redis.call('ZSCORE', R.k.presence, R.agent)
local wasOnline = prev ~= false and tonumber(prev) >= R.now - ttl
if prev ~= false and redis.call('ZREM', R.k.presence, R.agent) == 1 then dirty(R, R.k.presence) end
local ev = { type = 'agent_left', agent_id = R.agent, text = R.agent .. ' left the room' }
local id = appendEvent(R, ev, retained)
notify(R, { k = 'presence', op = 'offline', agent = R.agent, event_id = id, type = 'agent_left', event = ev })
return finish(R, { left = true, event = ev, was_present = prev ~= false, was_online = wasOnline, released = released })
