--[[
  Adds a room id to its team's room index, within the team's room limit. Runs before
  createRoom (the room's own keys live under another hash tag, so the two cannot share a script);
  an index entry whose room was never created is pruned by the next listing.

  KEYS[1]  the team's room index (sorted set: room id -> creation time, ms)
  ARGV[1]  room id
  ARGV[2]  rooms-per-team limit

  Returns {added = bool, count}; limit_reached when the index is full (the node prunes rooms
  that expired and tries once more).
  Effects  rooms
]]
--- @include "includes/fail"

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local count = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return cmsgpack.pack({ added = false, count = count })
end
local limit = tonumber(ARGV[2])
if count >= limit then
  return fail('limit_reached', 'the team has ' .. count .. ' rooms; the rooms-per-team limit is ' .. limit,
    { field = 'rooms', limit = limit })
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
return cmsgpack.pack({ added = true, count = count + 1 })
