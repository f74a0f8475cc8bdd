--[[
  Claims rooms for the Meilisearch indexer: rooms marked as changed whose lease is free or ran out
  get a lease for this node. A claimed room stays marked until ackSearchRoom clears it, so a node
  that dies mid-sync leaves it marked, and another node claims it once the lease runs out.

  A lease is its end time, and that time is also its token: the holder renews it
  (renewSearchLease) and acks it (ackSearchRoom) by the token it was given, and a node whose lease
  ran out and was claimed by another finds a different score there and touches nothing. Tokens
  never repeat: a room is claimed again only at or after the previous end, so the new end is later.

  KEYS[1]  dirty rooms (sorted set: "<teamId>/<roomId>" -> mark counter, +1 per mark)
  KEYS[2]  leases (sorted set: "<teamId>/<roomId>" -> until when it is held or must wait, ms)
  ARGV[1]  lease (ms)
  ARGV[2]  most rooms to claim
  ARGV[3]  one room to claim ('' = any)

  Returns {rooms = [{room, mark, lease}]}: each room with its mark counter as claimed (ack
  compares it) and the lease's token (its end, ms).
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
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
  local held = tonumber(redis.call('ZSCORE', KEYS[2], room) or '0')
  if held <= now then
    local token = now + lease
    redis.call('ZADD', KEYS[2], token, room)
    out[#out + 1] = { room = room, mark = tonumber(candidates[i + 1]), lease = token }
  end
end
return cmsgpack.pack({ rooms = out })
