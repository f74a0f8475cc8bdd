--[[
  GCRA rate limit of a team: `limit` calls per `period` ms as an exact rolling limit, with the
  whole period's allowance available as a burst. One key holds the theoretical arrival time.

  KEYS[1]  the team's rate key (string: TAT, ms)
  ARGV[1]  limit (calls per period)
  ARGV[2]  period (ms)

  Returns {allowed = bool, remaining, retry_after_ms, reset_ms} — reset_ms: until the full
  allowance is back; retry_after_ms: until the next call is allowed (0 when allowed).
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, period = tonumber(ARGV[1]), tonumber(ARGV[2])
local interval = period / limit
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local newTat = tat + interval
local allowAt = newTat - period
if now < allowAt then
  return cmsgpack.pack({ allowed = false, remaining = 0, retry_after_ms = math.ceil(allowAt - now), reset_ms = math.ceil(tat - now) })
end
redis.call('SET', KEYS[1], string.format('%.3f', newTat), 'PX', math.ceil(newTat - now) + 1000)
return cmsgpack.pack({
  allowed = true, remaining = math.floor((period - (newTat - now)) / interval),
  retry_after_ms = 0, reset_ms = math.ceil(newTat - now),
})
