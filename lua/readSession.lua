--[[
  The person behind a session token, if the session is live: not ended, used within the idle
  lifetime, and younger than its absolute lifetime. A live session's idle deadline moves on
  (at most once per ARGV[3] ms, so page loads do not write every time); a dead one is removed.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  sha256 of the session token
  ARGV[2]  idle lifetime (ms)
  ARGV[3]  least time between two moves of the idle deadline (ms)

  Returns {user?, session? = {created_at, abs}} (both absent: no live session).
  Effects  sessions
]]
--- @include "includes/nowMs"
--- @include "includes/acct"

local K = acctKeys()
local now = nowMs()
local raw = redis.call('HGET', K.sessions, ARGV[1])
if not raw then return cmsgpack.pack({}) end
local s = cmsgpack.unpack(raw)
local idle = tonumber(ARGV[2])
local uraw = redis.call('HGET', K.users, s.user)
if s.abs <= now or s.seen + idle <= now or not uraw then
  dropSession(K, ARGV[1])
  return cmsgpack.pack({})
end
if now - s.seen >= tonumber(ARGV[3]) then
  s.seen = now
  redis.call('HSET', K.sessions, ARGV[1], cmsgpack.pack(s))
  redis.call('ZADD', K.sessexp, math.min(now + idle, s.abs), ARGV[1])
end
return cmsgpack.pack({ user = cmsgpack.unpack(uraw), session = { created_at = s.created_at, abs = s.abs } })
