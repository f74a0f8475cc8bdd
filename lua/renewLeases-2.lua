--[[
  Renews leases their holder still holds (lua/includes/lease.lua): webhook deliveries in flight,
  rooms being indexed. A renewed lease keeps its token and gets a later end, so sending the same
  renewal twice (again after a reconnect, or after a reply that never came) renews it twice; a
  lease the holder no longer holds (it ran out and was taken over, or was released) is left as
  it is.

  KEYS[1]  a lease set's ends (sorted set: member -> until when it is held, ms)
  KEYS[2]  the lease set's tokens (hash: member -> "<token>:<end>")
  ARGV[1]  lease (ms) from now
  ARGV[2..] member, token held, member, token held, ...

  Returns {ends = [the new end of each pair in order, or 0 when it is no longer held]}.
  Effects  leases
]]
--- @include "includes/nowMs"
--- @include "includes/lease"

local now, ms = nowMs(), tonumber(ARGV[1])
local L = leaseSet(KEYS[1], KEYS[2])
local ends = {}
for i = 2, #ARGV - 1, 2 do
  ends[#ends + 1] = leaseRenew(L, ARGV[i], ARGV[i + 1], now, ms) or 0
end
return cmsgpack.pack({ ends = ends })
