--[[
  Lists who is online (get_presence), newest heartbeat first, and optionally who was seen
  recently but is no longer online.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      presence TTL (ms): seen within it = online
  ARGV[8]      forget-after (ms): offline agents seen within it are "recently offline"
  ARGV[9]      '1' to include recently offline agents
  ARGV[10]     most agents to list per group

  Returns {online = [{agent_id, last_seen_at}], online_count, offline? = [...], offline_count?}.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('listPresence')
if not R then return early end
local ttl, forget, withOffline, max = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9] == '1', tonumber(ARGV[10])
local since = R.now - ttl

local function group(hi, lo)
  local flat = redis.call('ZREVRANGEBYSCORE', R.k.presence, hi, lo, 'WITHSCORES', 'LIMIT', 0, max)
  local out = {}
  for i = 1, #flat, 2 do out[#out + 1] = { agent_id = flat[i], last_seen_at = tonumber(flat[i + 1]) } end
  return out
end

local res = {
  online = group('+inf', since),
  online_count = redis.call('ZCOUNT', R.k.presence, since, '+inf'),
}
if withOffline then
  res.offline = group('(' .. since, R.now - forget)
  res.offline_count = redis.call('ZCOUNT', R.k.presence, R.now - forget, '(' .. since)
end
return finish(R, res)
