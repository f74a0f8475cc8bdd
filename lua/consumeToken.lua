--[[
  Consumes a link token (sign-in or invite) and opens a session: the one change behind every
  e-mail link. An address with an account signs in. Otherwise the address is admitted here: an
  invite makes it a member (or owner) of the invite's team; a sign-in link of an address
  approved on the waitlist, or of an operator, makes it the owner of a new team (ARGV[7]; the
  node creates that team's records and first key right after). Everything is checked before
  anything is written: a refused link changes nothing and stays as it was.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  sha256 of the presented token
  ARGV[2]  sha256 of the new session token
  ARGV[3]  session idle lifetime (ms)       ARGV[4]  session absolute lifetime (ms)
  ARGV[5]  '1' when the token's address is an operator's
  ARGV[6]  id for a new user                ARGV[7]  id for a new team
  ARGV[8]  display name for a new user
  ARGV[9]  sha256 of the session the browser presented ('' none): ended (rotation)

  Returns {user, new_user = bool, created_team = bool}; forbidden (no such live token, or an
  address not admitted), conflict (an invite for an address that already has an account).
  Effects  users, members, tokens, invites, waitlist, sessions
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/acct"

local K = acctKeys()
local now = nowMs()
local bad = 'this link is not valid: it was used already, it has expired, or it was altered; ask for a new one'
local raw = redis.call('HGET', K.tokens, ARGV[1])
if not raw then return fail('forbidden', bad, { field = 'token' }) end
local tok = cmsgpack.unpack(raw)
if tok.exp <= now then
  dropToken(K, ARGV[1])
  return fail('forbidden', bad, { field = 'token' })
end

local uid = redis.call('HGET', K.emails, tok.email)
local user, inv, wl
local new_user, created_team = false, false
if tok.kind == 'invite' then
  local iraw = redis.call('HGET', K.invites, tok.invite)
  inv = iraw and cmsgpack.unpack(iraw)
  if not inv or inv.state ~= 'pending' or inv.expires_at <= now then
    return fail('forbidden', bad, { field = 'token' })
  end
  if uid then
    return fail('conflict', 'email: ' .. tok.email .. ' already has an account in a team; a person belongs to one team',
      { field = 'email' })
  end
elseif not uid then
  local ok
  ok, wl = admittedOwner(K, tok.email, ARGV[5] == '1')
  if not ok then
    return fail('forbidden', 'email: this address is not admitted; join the waitlist or ask a team owner for an invite',
      { field = 'email' })
  end
end

dropToken(K, ARGV[1])
pruneAccounts(K, now)
if uid then
  user = cmsgpack.unpack(redis.call('HGET', K.users, uid))
else
  new_user = true
  user = { id = ARGV[6], email = tok.email, name = ARGV[8], created_at = now, idents = {} }
  if inv then
    user.team, user.role = inv.team, inv.role
    created_team = inv.new_team == true
    inv.state, inv.accepted_at, inv.user = 'accepted', now, user.id
    storeInvite(K, inv)
  else
    user.team, user.role = ARGV[7], 'owner'
    created_team = true
    if wl then redis.call('HDEL', K.waitlist, tok.email) end
  end
  storeNewUser(K, user)
end
user.last_sign_in_at = now
redis.call('HSET', K.users, user.id, cmsgpack.pack(user))
if ARGV[9] ~= '' then dropSession(K, ARGV[9]) end
newSession(K, ARGV[2], user.id, now, tonumber(ARGV[3]), tonumber(ARGV[4]))
return cmsgpack.pack({ user = user, new_user = new_user, created_team = created_team })
