--[[
  Extends the leases a node still holds on the deliveries it has in flight, so a slow receiver
  (up to the request timeout) does not make a live node's delivery look stalled.

  KEYS[1]  the team's deliveries hash
  KEYS[2]  the team's leased deliveries
  ARGV[1]  lease token
  ARGV[2]  lease (ms) from now
  ARGV[3..] delivery ids

  Returns {extended = n, lost = [ids whose lease is no longer this node's]}.
]]
--- @include "includes/nowMs"

local now = nowMs()
local extended, lost = 0, {}
for i = 3, #ARGV do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  if raw and cmsgpack.unpack(raw).lease == ARGV[1] and redis.call('ZSCORE', KEYS[2], ARGV[i]) then
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[i])
    extended = extended + 1
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return cmsgpack.pack({ extended = extended, lost = lost })
