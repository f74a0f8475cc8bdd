--[[
  Records a heartbeat (heartbeat): the caller is online until ARGV[7] ms pass without another.
  Forgets agents not seen for ARGV[8] ms.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the agent (required)
  ARGV[7]      presence TTL (ms)
  ARGV[8]      forget-after (ms): presence entries older than this are removed

  Returns {online = agents online now, last_seen_at, was_online}.
  Publishes {k = 'presence', op = 'online', agent} only when the agent was not online before, so
  a steady heartbeat sends no notices.
  Effects  presence
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('recordHeartbeat')
if not R then return early end
local ttl, forget = tonumber(ARGV[7]), tonumber(ARGV[8])
local prev = redis.call('ZSCORE', R.k.presence, R.agent)
local wasOnline = prev ~= false and tonumber(prev) >= R.now - ttl
-- Times as %d strings: a number given to redis.call is printed with %.14g, which costs several
-- times more (bench/script-cost.ts --callgrind).
redis.call('ZADD', R.k.presence, string.format('%d', R.now), R.agent)
redis.call('ZREMRANGEBYSCORE', R.k.presence, '-inf', string.format('(%d', R.now - forget))
-- A score read above means the set was there already (and the ZADD keeps this agent in it).
dirty(R, R.k.presence, prev ~= false)
if not wasOnline then notify(R, { k = 'presence', op = 'online', agent = R.agent }) end
return finish(R, {
  online = redis.call('ZCOUNT', R.k.presence, string.format('%d', R.now - ttl), '+inf'),
  last_seen_at = R.now,
  was_online = wasOnline,
})
