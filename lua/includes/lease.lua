-- Leased work (docs/data-model.md, "Leases"): one rule for the team schedule, webhook deliveries
-- and search indexing. A lease set is two keys in one slot, `L = leaseSet(ends, tokens)`:
--   ends    sorted set: member -> until when it is held (ms, Redis time). A member with no score,
--           or a score not after now, is free. Nothing but a lease's end is ever read from it.
--   tokens  hash: member -> "<token>:<end>" of the lease held now: the claim's token, and the end
--           the rule last gave it.
-- A lease's token is fixed for the life of the claim (the claim's end, so a later claim of a
-- member gets a later token); only its end moves. The holder holds the lease while the member's
-- token is its own AND the score is still the end recorded beside it:
--   claim    a free member (never held, released, or its holder's lease ran out: a takeover):
--            score := now + ms; the token is that end;
--   renew    while held: score := max(now + ms, score). The token stays, so renewing twice (a
--            command sent again after a reconnect, or one whose reply was lost) renews twice;
--   release  while held: the member leaves the set, or stays with a later score that says when
--            it may be claimed again (the next look at a team, a retry's wait); its token goes.
-- Whatever else moves the score ends the lease: a takeover after it ran out, a wake that pulls a
-- team earlier, a node whose scripts move scores without tokens (a mixed-version rollout).
-- Its holder then no longer holds it: it renews and releases nothing, and the script that checks
-- the token before acting (settleDelivery, ackSearchRoom, rescheduleTeam) does nothing for it:
-- a stale holder is fenced.

local function leaseSet(ends, tokens)
  return { ends = ends, tokens = tokens }
end

-- The member's score (nil: absent), and the token and end recorded for it (nil: none).
local function leaseState(L, member)
  local s = redis.call('ZSCORE', L.ends, member)
  local rec = redis.call('HGET', L.tokens, member)
  local token, at
  if rec then
    local t, e = string.match(rec, '^([^:]+):(.+)$')
    token, at = tonumber(t), tonumber(e)
  end
  return s and tonumber(s), token, at
end

local function leaseRecord(L, member, token, at)
  redis.call('ZADD', L.ends, at, member)
  redis.call('HSET', L.tokens, member, string.format('%.0f:%.0f', token, at))
end

-- Claims `member` if it is free: returns the token, or nil when it is held.
local function leaseClaim(L, member, now, ms)
  local held = leaseState(L, member)
  if held and held > now then return nil end
  local token = now + ms
  leaseRecord(L, member, token, token)
  return token
end

-- Whether `token` holds `member` (false once it ran out and was claimed again, was released, or
-- its score was moved by anything but this rule).
local function leaseHeld(L, member, token)
  local s, t, at = leaseState(L, member)
  return s ~= nil and t == tonumber(token) and s == at
end

-- Renews a held lease: returns its new end, or nil when `token` does not hold it.
local function leaseRenew(L, member, token, now, ms)
  local s, t, at = leaseState(L, member)
  if s == nil or t ~= tonumber(token) or s ~= at then return nil end
  local renewed = math.max(now + ms, s)
  leaseRecord(L, member, t, renewed)
  return renewed
end

-- Releases a held lease: the member leaves the set (`notBefore` nil) or is free again from
-- `notBefore` on. Returns false, changing nothing, when `token` does not hold it.
local function leaseRelease(L, member, token, notBefore)
  if not leaseHeld(L, member, token) then return false end
  if notBefore then redis.call('ZADD', L.ends, notBefore, member) else redis.call('ZREM', L.ends, member) end
  redis.call('HDEL', L.tokens, member)
  return true
end

-- Removes members from the set whoever holds them (their work is gone: a deleted delivery).
local function leaseDrop(L, members)
  if #members == 0 then return end
  redis.call('ZREM', L.ends, unpack(members))
  redis.call('HDEL', L.tokens, unpack(members))
end
