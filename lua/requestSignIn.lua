--[[
  Stores a single-use sign-in link token for an address that may sign in: a person with an
  account, an address approved on the waitlist, or an operator (ADMIN_EMAILS). For any other
  address nothing is stored; the caller answers the same either way (no enumeration).

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  e-mail address (lower-cased)
  ARGV[2]  '1' when the address is an operator's, else '0'
  ARGV[3]  sha256 of the new token
  ARGV[4]  token lifetime (ms)

  Returns {issued = bool}. Publishes nothing.
  Effects  tokens
]]
--- @include "includes/nowMs"
--- @include "includes/acct"

local K = acctKeys()
local now = nowMs()
pruneAccounts(K, now)
local email = ARGV[1]
local allowed = ARGV[2] == '1' or redis.call('HEXISTS', K.emails, email) == 1
if not allowed then
  local raw = redis.call('HGET', K.waitlist, email)
  allowed = raw ~= false and cmsgpack.unpack(raw).state == 'approved'
end
if not allowed then return cmsgpack.pack({ issued = false }) end
storeToken(K, ARGV[3], { kind = 'signin', email = email }, now + tonumber(ARGV[4]))
return cmsgpack.pack({ issued = true })
