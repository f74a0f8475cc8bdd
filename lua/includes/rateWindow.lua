-- A rolling rate window: at most `limit` calls in any rolling `period` (no window of `period`,
-- wherever it starts, admits more). Calls are counted in 60 buckets of period/60 ms (1 s for a
-- minute) in one hash, bucket number -> calls; `want` calls are allowed while the calls of the
-- current bucket and the 60 before it, plus them, are at most `limit`. Those 61 buckets cover
-- every window of `period` that ends now, so the limit holds exactly (at the price of counting at
-- most one bucket, 1 s, more than the period). The whole allowance may go in a burst; then calls
-- come back as the buckets they used leave the window.
--
-- rateWindow(key, limit, period, want, now) counts the first `granted` of `want` calls (0 to
-- `want`; want 0 only reads) and returns granted, remaining (allowance left after them), reset_ms
-- (until the full allowance is back) and retry_ms (until one more call would fit; 0 when all
-- `want` were granted).
local RATE_BUCKETS = 60

local function rateWindow(key, limit, period, want, now)
  local width = period / RATE_BUCKETS
  local cur = math.floor(now / width)
  local oldest = cur - RATE_BUCKETS
  -- A key of another type under the same name (a GCRA string) starts over as an empty window.
  local flat = redis.pcall('HGETALL', key)
  if flat.err then
    redis.call('DEL', key)
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
  if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end
  local granted = math.max(0, math.min(want, limit - total))
  if granted > 0 then
    redis.call('HINCRBY', key, string.format('%d', cur), granted)
    counts[cur] = (counts[cur] or 0) + granted
    total = total + granted
    redis.call('PEXPIRE', key, math.ceil(period + 2 * width))
  end
  -- Bucket b stops counting at the start of bucket b + RATE_BUCKETS + 1.
  local function leaves(b) return math.ceil((b + RATE_BUCKETS + 1) * width - now) end
  local retry, reset = 0, 0
  if granted < want or (want == 0 and total >= limit) then
    -- One more call fits once the oldest buckets holding total - limit + 1 calls have left.
    local need, freed = total - limit + 1, 0
    for b = oldest, cur do
      freed = freed + (counts[b] or 0)
      if freed >= need then
        retry = leaves(b)
        break
      end
    end
  end
  for b = cur, oldest, -1 do
    if counts[b] then
      reset = leaves(b)
      break
    end
  end
  return granted, math.max(0, limit - total), reset, retry
end
