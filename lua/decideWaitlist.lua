--[[
  An operator approves or declines a waitlist entry. Approval stores a sign-in link token for the
  address (the caller mails the link); the first sign-in with it creates the person's team.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  e-mail address (lower-cased)
  ARGV[2]  'approve' or 'decline'
  ARGV[3]  sha256 of the new token (approve)     ARGV[4]  token lifetime (ms)

  Returns {entry}; not_found (not on the waitlist), conflict (the address has an account).
  Effects  tokens, waitlist
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/acct"

local K = acctKeys()
local now = nowMs()
local email = ARGV[1]
local raw = redis.call('HGET', K.waitlist, email)
if not raw then return fail('not_found', 'email: ' .. email .. ' is not on the waitlist', { field = 'email' }) end
if redis.call('HEXISTS', K.emails, email) == 1 then
  return fail('conflict', 'email: ' .. email .. ' has an account already', { field = 'email' })
end
local entry = cmsgpack.unpack(raw)
pruneAccounts(K, now)
entry.decided_at = now
if ARGV[2] == 'approve' then
  entry.state = 'approved'
  storeToken(K, ARGV[3], { kind = 'signin', email = email }, now + tonumber(ARGV[4]))
else
  entry.state = 'declined'
end
redis.call('HSET', K.waitlist, email, cmsgpack.pack(entry))
return cmsgpack.pack({ entry = entry })
