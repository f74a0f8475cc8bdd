--[[
  Releases the caller's reservations: the given patterns, or all of them when none is given.
  Releasing a pattern the caller does not hold (expired, released already, never reserved, or
  held by another agent) is not an error: it is listed in not_held, so a retry is safe.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1] the room's reservations hash (store.keys.reservations)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the agent (required)
  ARGV[7]      'all': every reservation of the caller; 'some': the patterns that follow
  ARGV[8..]    the patterns to release

  Returns {released = [pattern...], not_held = [pattern...]}.
  Publishes {k = 'reservation', op = 'released', agent, patterns} when it released any.
  Effects  reservations
]]
--- @include "includes/openRoom"
--- @include "includes/reservations"
--- @include "includes/finish"

local R, early = openRoom('releaseFiles')
if not R then return early end
local key = KEYS[ROOM_KEY_COUNT + 1]
local released, notHeld = {}, {}
if ARGV[7] == 'all' then
  released = releaseAllOf(R, key, R.agent)
else
  local live = liveReservations(R, key)
  for i = 8, #ARGV do
    local field = resvField(R.agent, ARGV[i])
    if live[field] then
      redis.call('HDEL', key, field)
      live[field] = nil
      released[#released + 1] = ARGV[i]
    else
      notHeld[#notHeld + 1] = ARGV[i]
    end
  end
end
if #released > 0 then
  reservationsChanged(R, key)
  notify(R, { k = 'reservation', op = 'released', agent = R.agent, patterns = released })
end
return finish(R, { released = released, not_held = notHeld })
