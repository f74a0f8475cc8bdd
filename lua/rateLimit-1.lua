--[[
  A rate limit in one window (includes/rateWindow: at most `limit` calls in any rolling `period`):
  the sign-in and mail limits, one request at a time. (The API's limits lease chunks of their
  windows instead: leaseRate-2.lua.)

  KEYS[1]  the rate window (hash: bucket number -> calls counted in it)
  ARGV[1]  limit (calls per period)
  ARGV[2]  period (ms)
  ARGV[3]  n: calls to count (default 1)

  Returns {allowed = number of calls let through (the first ones of the n), remaining =
  allowance left after them, reset_ms = until the full allowance is back, retry_after_ms = until
  the next call would be allowed (0 when all were allowed)}.
  Effects  rate
]]
--- @include "includes/nowMs"
--- @include "includes/rateWindow"
local allowed, remaining, reset, retry =
  rateWindow(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3] or '1'), nowMs())
return cmsgpack.pack({ allowed = allowed, remaining = remaining, reset_ms = reset, retry_after_ms = retry })
