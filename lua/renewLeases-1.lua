--[[
  Renews leases their holder still holds (lua/includes/lease.lua): webhook deliveries in flight,
  rooms being indexed. Each renewed lease gets a new token (its new end); a lease the holder no
  longer holds (it ran out and was taken over, or was released) is left as it is.

  KEYS[1]  a lease set (sorted set: member -> until when it is held, ms)
  ARGV[1]  lease (ms) from now
  ARGV[2..] member, token held, member, token held, ...

  Returns {tokens = [the new token of each pair in order, or 0 when it is no longer held]}.
]]
--- @include "includes/nowMs"
--- @include "includes/lease"

local now, ms = nowMs(), tonumber(ARGV[1])
local tokens = {}
for i = 2, #ARGV - 1, 2 do
  tokens[#tokens + 1] = leaseRenew(KEYS[1], ARGV[i], ARGV[i + 1], now, ms) or 0
end
return cmsgpack.pack({ tokens = tokens })
