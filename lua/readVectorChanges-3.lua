--[[
  What changed in a room's vectors since a version a node holds (src/search/vectors/follower.ts):
  the vectors written since, and the records removed since. Everything, when the node holds
  nothing, another epoch, or a version older than the removals still recorded (#floor).

  KEYS[1]  vec, KEYS[2] log, KEYS[3] dels (as in writeVectors-5.lua)
  ARGV[1]  the version held (-1: none)
  ARGV[2]  the epoch held ('' : none)
  ARGV[3]  vectors this call returns (the node sizes it in bytes; the whole of the last write
           reached, so a little more); the rest come from further calls, from `upto` on

  Returns {ver, epoch, gen, full (everything from scratch), upto (the version this answer is
  complete to: ver, or less when more vectors are left), keys = [doc key of each row],
  dels = [doc key]} and rows: the packed vectors, in the order of keys. Publishes nothing.
  Effects  none
]]
local m = redis.call('HMGET', KEYS[1], '#ver', '#epoch', '#floor', '#gen')
local ver, epoch, floor = tonumber(m[1] or '0'), m[2] or '', tonumber(m[3] or '0')
local since, max = tonumber(ARGV[1]), tonumber(ARGV[3])
local full = since < 0 or epoch ~= ARGV[2] or floor > since
if full then since = -1 end
local hits = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. since, '+inf', 'WITHSCORES', 'LIMIT', 0, max)
local upto = ver
local keys = {}
local last = nil
for i = 1, #hits, 2 do
  keys[#keys + 1] = hits[i]
  last = hits[i + 1]
end
if #keys == max then
  -- More may remain. One write's vectors share its version: the answer ends with the whole of
  -- the last version it reached (one write holds one embedding batch), and is complete up to it.
  upto = tonumber(last)
  for i = #keys, 1, -1 do
    if hits[2 * i] ~= last then break end
    keys[i] = nil
  end
  for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], last, last)) do keys[#keys + 1] = k end
end
local rows = {}
for i, k in ipairs(keys) do rows[i] = redis.call('HGET', KEYS[1], k) end
local removed = {}
if not full then removed = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. since, upto) end
local out = { cmsgpack.pack({ ver = ver, epoch = epoch, gen = m[4] or '', full = full, upto = upto, keys = keys,
  dels = removed }) }
for i = 1, #rows do out[i + 1] = rows[i] end
return out
