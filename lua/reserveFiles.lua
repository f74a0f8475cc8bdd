--[[
  Reserves file patterns for the caller, all or none, exclusive or shared, for a TTL. Overlap
  with other agents' reservations is decided by the caller (src/core/reservations.ts, exact glob
  intersection) against the reservations it read at version ARGV[7]; this script writes only if
  the room's reservations are still at that version, and otherwise answers retry. A pattern the
  caller holds already is renewed: its token and acquired_at stay, mode, reason and expiry change.
  A new one takes the room's next fencing token (meta.fence, shared with locks).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1] the room's reservations hash (store.keys.reservations)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1], the agent, is the holder
  ARGV[7]      the reservations version (meta.rver) the caller decided against ('0' when unset)
  ARGV[8]      TTL (ms)
  ARGV[9]      reservations-per-room limit (live patterns)
  ARGV[10]     '1' exclusive, '0' shared
  ARGV[11]     reason ('' = none)
  ARGV[12..]   the patterns (distinct)

  Returns {retry = true} or {reservations = [record...], now, version}: retry when the version
  moved; limit_reached.
  Publishes {k = 'reservation', op = 'reserved', agent, patterns} when it wrote.
  Effects  reservations
]]
--- @include "includes/openRoom"
--- @include "includes/reservations"
--- @include "includes/finish"

-- The version is what this caller read, not what it asked: a repeat binds to ARGV[8..] only.
local R, early = openRoom('reserveFiles', 8)
if not R then return early end
local key, expected, ttl, limit = KEYS[ROOM_KEY_COUNT + 1], ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])
local exclusive, reason = ARGV[10] == '1', ARGV[11]

if (redis.call('HGET', R.k.meta, 'rver') or '0') ~= expected then return finish(R, { retry = true }) end
local live, n = liveReservations(R, key)
local added = 0
for i = 12, #ARGV do
  if not live[resvField(R.agent, ARGV[i])] then added = added + 1 end
end
if n + added > limit then
  return fail('limit_reached', 'patterns: the room holds ' .. n .. ' live reservations and this call adds ' .. added ..
    '; the reservations-per-room limit is ' .. limit .. '; release some first (release_files)',
    { field = 'patterns', limit = limit, held = n })
end

local out, patterns = {}, {}
for i = 12, #ARGV do
  local field = resvField(R.agent, ARGV[i])
  local rec = live[field]
  if not rec then
    rec = { agent = R.agent, pattern = ARGV[i], token = redis.call('HINCRBY', R.k.meta, 'fence', 1),
      acquired_at = R.now }
  end
  rec.exclusive = exclusive
  rec.reason = reason ~= '' and reason or nil
  rec.expires_at = R.now + ttl
  redis.call('HSET', key, field, cmsgpack.pack(rec))
  out[#out + 1] = rec
  patterns[#patterns + 1] = ARGV[i]
end
local version = reservationsChanged(R, key, ttl)
notify(R, { k = 'reservation', op = 'reserved', agent = R.agent, patterns = patterns })
return finish(R, { reservations = out, now = R.now, version = version })
