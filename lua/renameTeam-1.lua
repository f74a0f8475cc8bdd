--[[
  Renames a team: its record's name, only while the team exists (a deleted team is not made
  again as a record holding nothing but a name).

  KEYS[1]  team hash
  ARGV[1]  the new name (validated by the caller)

  Returns {renamed = bool, from? = the name it had (absent when the team does not exist)}.
  Effects  teams
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return cmsgpack.pack({ renamed = false })
end
local from = redis.call('HGET', KEYS[1], 'name')
redis.call('HSET', KEYS[1], 'name', ARGV[1])
return cmsgpack.pack({ renamed = true, from = from })
