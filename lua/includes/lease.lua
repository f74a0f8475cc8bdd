-- Leased work (docs/data-model.md, "Leases"): one rule for the team schedule, webhook deliveries
-- and search indexing. A lease set is a sorted set: member -> until when it is held (ms, Redis
-- time). A member with no score, or a score not after now, is free. A lease's token is its end:
--   claim    a free member (never held, released, or its holder's lease ran out: a takeover):
--            score := now + ms, and the claimer holds it with that score as its token;
--   renew    while score == token: score := max(now + ms, token + 1), the new token;
--   release  while score == token: the member leaves the set, or stays with a later score that
--            says when it may be claimed again (the next look at a team, a retry's wait).
-- Whatever else moves the score ends the lease: a takeover after it ran out, or a wake that pulls
-- a team earlier. Its holder's token then no longer matches, so it renews and releases nothing,
-- and the script that checks the token before acting (settleDelivery, ackSearchRoom,
-- rescheduleTeam) does nothing for it: a stale holder is fenced. Tokens of a member grow: a
-- claim happens only once the previous lease ended, so it ends later (a lease cut short by a wake
-- and claimed again within the same millisecond is the exception: only teams are woken, and a
-- team's token only reschedules it).
-- Reading the score: nil (absent) or a number.
local function leaseScore(key, member)
  local s = redis.call('ZSCORE', key, member)
  return s and tonumber(s)
end

-- Claims `member` if it is free: returns the token (the lease's end), or nil when it is held.
local function leaseClaim(key, member, now, ms)
  local held = leaseScore(key, member)
  if held and held > now then return nil end
  local token = now + ms
  redis.call('ZADD', key, token, member)
  return token
end

-- Whether `token` still holds `member` (false once it ran out and was claimed again, was
-- released, or was cut short).
local function leaseHeld(key, member, token)
  return leaseScore(key, member) == tonumber(token)
end

-- Renews a held lease: returns the new token, or nil when `token` no longer holds it.
local function leaseRenew(key, member, token, now, ms)
  token = tonumber(token)
  if leaseScore(key, member) ~= token then return nil end
  local renewed = math.max(now + ms, token + 1)
  redis.call('ZADD', key, renewed, member)
  return renewed
end

-- Releases a held lease: the member leaves the set (`notBefore` nil) or is free again from
-- `notBefore` on. Returns false, changing nothing, when `token` no longer holds it.
local function leaseRelease(key, member, token, notBefore)
  if not leaseHeld(key, member, token) then return false end
  if notBefore then redis.call('ZADD', key, notBefore, member) else redis.call('ZREM', key, member) end
  return true
end
