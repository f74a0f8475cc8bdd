--[[
  Creates a team with its first team key, unless the team exists. Used for the default team at
  first start: when several nodes start together exactly one of them creates it (and prints the
  key); the others get created = false.

  KEYS[1]  team hash          KEYS[2]  team keys hash
  KEYS[3]  secrets hash
  (the global set of team ids lives in another slot; the node adds the id to it afterwards)
  ARGV[1]  team id            ARGV[2]  team name
  ARGV[3]  msgpack key record {id, hash, hint, label}

  Returns {created = bool, team = {id, name, created_at}}.
  Effects  teams, keys
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('EXISTS', KEYS[1]) == 1 then
  local f = redis.call('HMGET', KEYS[1], 'id', 'name', 'created_at')
  return cmsgpack.pack({ created = false, team = { id = f[1], name = f[2], created_at = tonumber(f[3]) } })
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'created_at', now)
local key = cmsgpack.unpack(ARGV[3])
key.created_at = now
redis.call('HSET', KEYS[2], key.id, cmsgpack.pack(key))
redis.call('HSET', KEYS[3], key.hash, 'k:' .. key.id)
return cmsgpack.pack({ created = true, team = { id = ARGV[1], name = ARGV[2], created_at = now } })
