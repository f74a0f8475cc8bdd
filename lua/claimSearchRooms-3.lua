--[[
  Claims rooms for an indexer (src/search/indexer.ts): rooms marked as changed whose lease is free
  get a lease for this node (includes/lease: KEYS[2] and KEYS[3] are the rooms' lease set). A claimed room
  stays marked until ackSearchRoom clears it, so a node that dies mid-sync leaves it marked, and
  another node claims it once the lease runs out. The holder renews its lease (renewLeases) while
  it syncs and releases it by its token (ackSearchRoom).

  KEYS[1]  dirty rooms (sorted set: "<teamId>/<roomId>" -> mark counter, +1 per mark)
  KEYS[2]  leases (sorted set: "<teamId>/<roomId>" -> until when it is held or must wait, ms)
  KEYS[3]  the leases' tokens (hash: "<teamId>/<roomId>" -> "<token>:<end>")
  ARGV[1]  lease (ms)
  ARGV[2]  most rooms to claim
  ARGV[3]  one room to claim ('' = any)

  Returns {rooms = [{room, mark, token}]}: each room with its mark counter as claimed (ack
  compares it) and the lease's token.
  Effects  search
]]
--- @include "includes/nowMs"
--- @include "includes/lease"

local now = nowMs()
local L = leaseSet(KEYS[2], KEYS[3])
local lease, max, only = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local candidates = {}
if only ~= '' then
  local mark = redis.call('ZSCORE', KEYS[1], only)
  if mark then candidates = { only, mark } end
else
  candidates = redis.call('ZRANGE', KEYS[1], 0, max * 4 - 1, 'WITHSCORES')
end
local out = {}
for i = 1, #candidates, 2 do
  if #out >= max then break end
  local room = candidates[i]
  local token = leaseClaim(L, room, now, lease)
  if token then out[#out + 1] = { room = room, mark = tonumber(candidates[i + 1]), token = token } end
end
return cmsgpack.pack({ rooms = out })
