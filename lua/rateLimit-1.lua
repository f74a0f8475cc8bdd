--[[
  GCRA rate limit of a team: `limit` calls per `period` ms as an exact rolling limit, with the
  whole period's allowance available as a burst. One key holds the theoretical arrival time
  (TAT). A node sends the calls of one team that arrived in the same tick as one batch of `n`:
  the first `allowed` of them pass, the rest are refused — the same outcome as n single calls.

  KEYS[1]  the team's rate key (string: TAT, ms)
  ARGV[1]  limit (calls per period)
  ARGV[2]  period (ms)
  ARGV[3]  n: calls in this batch (default 1)

  Returns {allowed = number of calls let through (the first ones of the batch), remaining =
  allowance left after the last of them, reset_ms = until the full allowance is back,
  retry_after_ms = until the next call would be allowed (0 when all were allowed)}.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, period, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3] or '1')
local interval = period / limit
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
-- Calls that fit now: the i-th passes while tat + i * interval - period <= now.
local fit = math.floor((now + period - tat) / interval + 1e-9)
if fit < 0 then fit = 0 end
local allowed = math.min(n, fit)
local newTat = tat + allowed * interval
if allowed > 0 then
  redis.call('SET', KEYS[1], string.format('%.3f', newTat), 'PX', math.ceil(newTat - now) + 1000)
end
local retry = 0
if allowed < n then retry = math.ceil(newTat + interval - period - now) end
return cmsgpack.pack({
  allowed = allowed, remaining = math.max(0, math.floor((period - (newTat - now)) / interval + 1e-9)),
  reset_ms = math.ceil(newTat - now), retry_after_ms = retry,
})
