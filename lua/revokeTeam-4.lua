--[[
  Revokes every credential of a team at once (the owner deleted the account as its last
  member): every team key and room invite key stops authenticating. The caller publishes each
  returned hash on the revocation path (src/auth/keyring.ts), then removes the team's data.

  KEYS[1]  team hash          KEYS[2]  team keys hash
  KEYS[3]  room invites hash  KEYS[4]  secrets hash
  ARGV     none

  Returns {hashes = [sha256 of every key that was live]}.
  Effects  teams, keys
]]
local hashes = redis.call('HKEYS', KEYS[4])
redis.call('DEL', KEYS[4], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'deleted', '1')
return cmsgpack.pack({ hashes = hashes })
