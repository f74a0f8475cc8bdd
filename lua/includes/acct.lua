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

-- Member invites: each is indexed under its team (tinvites) and has a deletion time (invexp): its
-- end (expiry, revocation, acceptance) plus INVITE_KEEP_MS, so finished invites stay listed for a
-- while and then go. A team keeps at most INVITE_FINISHED_MAX finished ones besides its pending
-- ones (capped by LIMIT_PENDING_INVITES): no read or write of a team's invites grows with history.
local INVITE_KEEP_MS = 30 * 86400000
local INVITE_FINISHED_MAX = 100

-- Indexes invites stored before the index existed; O(1) once every invite is indexed.
local function indexInvites(K)
  if redis.call('HLEN', K.invites) == redis.call('ZCARD', K.tinvites) then return end
  local flat = redis.call('HGETALL', K.invites)
  for i = 1, #flat, 2 do
    local inv = cmsgpack.unpack(flat[i + 1])
    redis.call('ZADD', K.tinvites, 0, inv.team .. '|' .. inv.id)
    local ended = inv.accepted_at or inv.revoked_at or inv.expires_at
    redis.call('ZADD', K.invexp, 'NX', ended + INVITE_KEEP_MS, inv.id)
  end
end

local function storeInvite(K, inv)
  redis.call('HSET', K.invites, inv.id, cmsgpack.pack(inv))
  redis.call('ZADD', K.tinvites, 0, inv.team .. '|' .. inv.id)
  local ended = inv.accepted_at or inv.revoked_at or inv.expires_at
  redis.call('ZADD', K.invexp, ended + INVITE_KEEP_MS, inv.id)
end

local function dropInvite(K, inv)
  redis.call('HDEL', K.invites, inv.id)
  redis.call('ZREM', K.tinvites, inv.team .. '|' .. inv.id)
  redis.call('ZREM', K.invexp, inv.id)
end

-- A team's invites (every state).
local function teamInvites(K, team)
  local out = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K.tinvites, '[' .. team .. '|', '[' .. team .. '|\255')) do
    local raw = redis.call('HGET', K.invites, string.sub(m, #team + 2))
    if raw then out[#out + 1] = cmsgpack.unpack(raw) end
  end
  return out
end

-- Deletes up to 20 invites past their retention, and a team's oldest finished invites past
-- INVITE_FINISHED_MAX (`invites`: the team's, as teamInvites returns them).
local function pruneInvites(K, now, invites)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', K.invexp, '-inf', now, 'LIMIT', 0, 20)) do
    local raw = redis.call('HGET', K.invites, id)
    if raw then dropInvite(K, cmsgpack.unpack(raw)) else redis.call('ZREM', K.invexp, id) end
  end
  if not invites then return end
  local finished = {}
  for _, inv in ipairs(invites) do
    if inv.state ~= 'pending' or inv.expires_at <= now then finished[#finished + 1] = inv end
  end
  if #finished <= INVITE_FINISHED_MAX then return end
  table.sort(finished, function(a, b) return a.created_at < b.created_at end)
  for i = 1, #finished - INVITE_FINISHED_MAX do dropInvite(K, finished[i]) end
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
