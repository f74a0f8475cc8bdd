--[[
  The rate limit of a team: at most `limit` calls in any rolling `period` (a true per-minute
  limit: no 60 s window, wherever it starts, admits more). Calls are counted in 60 buckets of
  period/60 ms (1 s for a minute) in one hash, bucket number -> calls; a call is allowed while the
  calls of the current bucket and the 60 before it, plus it, are at most `limit`. Those 61
  buckets cover every window of `period` that ends now, so the limit holds exactly (at the price
  of counting at most one bucket, 1 s, more than the period). The whole allowance may go in a
  burst; then calls come back as the buckets they used leave the window.
  (GCRA with the period's allowance as burst, before this, let a rolling minute admit twice the
  limit: a full burst, then a steady refill.)
  A node sends the calls of one team that arrived in the same tick as one batch of `n`: the first
  `allowed` of them pass, the rest are refused, as n single calls would be.

  KEYS[1]  the team's rate window (hash: bucket number -> calls counted in it)
  ARGV[1]  limit (calls per period)
  ARGV[2]  period (ms)
  ARGV[3]  n: calls in this batch (default 1)

  Returns {allowed = number of calls let through (the first ones of the batch), remaining =
  allowance left after them, reset_ms = until the full allowance is back, retry_after_ms = until
  the next call would be allowed (0 when all were allowed)}.
  Effects  rate
]]
local BUCKETS = 60
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, period, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3] or '1')
local width = period / BUCKETS
local cur = math.floor(now / width)
local oldest = cur - BUCKETS
-- A key left by the GCRA this replaced (a string: the same key name) starts over as an empty window.
local flat = redis.pcall('HGETALL', KEYS[1])
if flat.err then
  redis.call('DEL', KEYS[1])
  flat = {}
end
local counts, stale, total = {}, {}, 0
for i = 1, #flat, 2 do
  local b, c = tonumber(flat[i]), tonumber(flat[i + 1])
  if b < oldest then
    stale[#stale + 1] = flat[i]
  else
    counts[b] = c
    total = total + c
  end
end
if #stale > 0 then redis.call('HDEL', KEYS[1], unpack(stale)) end
local allowed = math.max(0, math.min(n, limit - total))
if allowed > 0 then
  local field = string.format('%d', cur)
  redis.call('HINCRBY', KEYS[1], field, allowed)
  counts[cur] = (counts[cur] or 0) + allowed
  total = total + allowed
  redis.call('PEXPIRE', KEYS[1], math.ceil(period + 2 * width))
end
-- Bucket b stops counting at the start of bucket b + BUCKETS + 1.
local function leaves(b) return math.ceil((b + BUCKETS + 1) * width - now) end
local retry, reset = 0, 0
if allowed < n then
  -- The next call fits once the oldest buckets holding total - limit + 1 calls have left.
  local need, freed = total - limit + 1, 0
  for b = oldest, cur do
    freed = freed + (counts[b] or 0)
    if freed >= need then retry = leaves(b) break end
  end
end
for b = cur, oldest, -1 do
  if counts[b] then reset = leaves(b) break end
end
return cmsgpack.pack({ allowed = allowed, remaining = math.max(0, limit - total), reset_ms = reset,
  retry_after_ms = retry })
