--[[
  Reads a team's webhooks with their delivery health, in one consistent view.

  KEYS[1]  the team's webhooks hash
  KEYS[2]  the team's webhook health hash

  Returns {n} and rows: record, health ('' when none), record, health, ... (raw msgpack; the node
  decodes them and never shows the secret).
  Effects  none
]]
local out = { cmsgpack.pack({ n = 0 }) }
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  out[#out + 1] = all[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], all[i]) or ''
end
out[1] = cmsgpack.pack({ n = #all / 2 })
return out
