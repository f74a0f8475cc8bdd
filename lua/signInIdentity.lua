--[[
  Signs in with an OAuth/OIDC identity (provider + subject) and opens a session. An identity
  already linked signs its person in. A new identity is linked to the person signed in on this
  browser (ARGV[10], a live session), who proves so that it is theirs. Otherwise, only when the
  operator trusts the provider's verified e-mail addresses (ARGV[11]), it is linked through that
  address: to the person who has it, or, for an address admitted as a new team's owner (approved
  on the waitlist, or an operator's), to a new person who owns a new team (ARGV[8]; the node
  creates the team's records and first key right after). Anything else is refused and changes
  nothing.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  identity "<provider>:<subject>"
  ARGV[2]  the provider's verified e-mail address, lower-cased ('' none or not verified)
  ARGV[3]  sha256 of the new session token
  ARGV[4]  session idle lifetime (ms)       ARGV[5]  session absolute lifetime (ms)
  ARGV[6]  '1' when the address is an operator's
  ARGV[7]  id for a new user                ARGV[8]  id for a new team
  ARGV[9]  display name for a new user
  ARGV[10] sha256 of the session the browser presented ('' none): ended (rotation)
  ARGV[11] '1' when the provider is trusted to link by verified e-mail address (AUTH_LINK_BY_EMAIL)

  Returns {user, new_user = bool, created_team = bool, linked = bool}; forbidden (no verified
  address, an address not admitted, or a provider not trusted to link by address).
  Effects  users, members, waitlist, sessions
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/acct"

local K = acctKeys()
local now = nowMs()
local ident, email = ARGV[1], ARGV[2]
local uid = redis.call('HGET', K.idents, ident)
local user, wl
local new_user, created_team, linked = false, false, false
local function signedInUser()
  if ARGV[10] == '' then return nil end
  local raw = redis.call('HGET', K.sessions, ARGV[10])
  local s = raw and cmsgpack.unpack(raw)
  if not s or s.abs <= now or redis.call('HEXISTS', K.users, s.user) == 0 then return nil end
  return s.user
end

if not uid then
  uid = signedInUser()
  linked = true
end
if not uid then
  if ARGV[11] ~= '1' then
    return fail('forbidden', 'this provider is not trusted to link accounts by e-mail address: sign in with an e-mail '
      .. 'link first, then sign in with the provider once to link it', { field = 'provider' })
  end
  if email == '' then
    return fail('forbidden',
      'email: the provider gave no verified e-mail address, so this sign-in cannot be linked to an account',
      { field = 'email' })
  end
  uid = redis.call('HGET', K.emails, email)
  if not uid then
    local ok
    ok, wl = admittedOwner(K, email, ARGV[6] == '1')
    if not ok then
      return fail('forbidden', 'email: ' .. email
        .. ' is not admitted; join the waitlist or ask a team owner for an invite', { field = 'email' })
    end
  end
  linked = true
end

pruneAccounts(K, now)
if uid then
  user = cmsgpack.unpack(redis.call('HGET', K.users, uid))
else
  new_user, created_team = true, true
  user = { id = ARGV[7], email = email, name = ARGV[9], team = ARGV[8], role = 'owner', created_at = now, idents = {} }
  if wl then redis.call('HDEL', K.waitlist, email) end
  storeNewUser(K, user)
end
if linked then
  local idents = {}
  for _, i in ipairs(user.idents or {}) do idents[#idents + 1] = i end
  idents[#idents + 1] = ident
  user.idents = idents
  redis.call('HSET', K.idents, ident, user.id)
end
user.last_sign_in_at = now
redis.call('HSET', K.users, user.id, cmsgpack.pack(user))
if ARGV[10] ~= '' then dropSession(K, ARGV[10]) end
newSession(K, ARGV[3], user.id, now, tonumber(ARGV[4]), tonumber(ARGV[5]))
return cmsgpack.pack({ user = user, new_user = new_user, created_team = created_team, linked = linked })
