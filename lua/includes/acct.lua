-- Helpers of the account scripts (lua/, the scripts whose header takes KEYS[accounts]): sessions, tokens, pruning.
--- @include "includes/acctKeys"

-- Removes up to 20 link tokens and 20 sessions whose time is up, so neither hash grows with
-- abandoned links or closed browsers.
local function pruneAccounts(K, now)
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', K.tokexp, '-inf', now, 'LIMIT', 0, 20)) do
    redis.call('HDEL', K.tokens, h)
    redis.call('ZREM', K.tokexp, h)
  end
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', K.sessexp, '-inf', now, 'LIMIT', 0, 20)) do
    local raw = redis.call('HGET', K.sessions, h)
    if raw then redis.call('ZREM', K.usess, cmsgpack.unpack(raw).user .. '|' .. h) end
    redis.call('HDEL', K.sessions, h)
    redis.call('ZREM', K.sessexp, h)
  end
end

local function storeToken(K, hash, rec, exp)
  rec.exp = exp
  redis.call('HSET', K.tokens, hash, cmsgpack.pack(rec))
  redis.call('ZADD', K.tokexp, exp, hash)
end

local function dropToken(K, hash)
  redis.call('HDEL', K.tokens, hash)
  redis.call('ZREM', K.tokexp, hash)
end

local function dropSession(K, hash)
  local raw = redis.call('HGET', K.sessions, hash)
  if not raw then return false end
  redis.call('ZREM', K.usess, cmsgpack.unpack(raw).user .. '|' .. hash)
  redis.call('HDEL', K.sessions, hash)
  redis.call('ZREM', K.sessexp, hash)
  return true
end

-- A new session of `user`: idle deadline now + idle, absolute deadline now + abs.
local function newSession(K, hash, user, now, idle, abs)
  redis.call('HSET', K.sessions, hash, cmsgpack.pack({ user = user, created_at = now, seen = now, abs = now + abs }))
  redis.call('ZADD', K.sessexp, math.min(now + idle, now + abs), hash)
  redis.call('ZADD', K.usess, 0, user .. '|' .. hash)
end

-- Every session of `user` ends (deletion).
local function dropUserSessions(K, user)
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K.usess, '[' .. user .. '|', '[' .. user .. '|\255')) do
    local hash = string.sub(m, #user + 2)
    redis.call('HDEL', K.sessions, hash)
    redis.call('ZREM', K.sessexp, hash)
    redis.call('ZREM', K.usess, m)
  end
end

-- The ids of a team's members.
local function teamMembers(K, team)
  local out = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K.members, '[' .. team .. '|', '[' .. team .. '|\255')) do
    out[#out + 1] = string.sub(m, #team + 2)
  end
  return out
end

-- Whether an address without an account is admitted as a new team's owner: an operator's, or
-- approved on the waitlist. Also returns its waitlist entry, if any.
local function admittedOwner(K, email, operator)
  local wraw = redis.call('HGET', K.waitlist, email)
  local wl = wraw and cmsgpack.unpack(wraw)
  return operator or (wl ~= nil and wl ~= false and wl.state == 'approved'), wl
end

-- Stores a new person: record, address index, membership (the caller sets team and role).
local function storeNewUser(K, user)
  redis.call('HSET', K.users, user.id, cmsgpack.pack(user))
  redis.call('HSET', K.emails, user.email, user.id)
  redis.call('ZADD', K.members, 0, user.team .. '|' .. user.id)
end
