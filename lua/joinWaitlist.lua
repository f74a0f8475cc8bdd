--[[
  Puts an address on the waitlist with a short note. An address that has an account or is
  listed already changes nothing; the reply is the same in every case (no enumeration), except
  when the waitlist is full, which says nothing about the address.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  e-mail address (lower-cased)    ARGV[2]  note ('' none)
  ARGV[3]  most entries the waitlist may hold

  Returns {ok = true}; limit_reached (the waitlist is full).
  Effects  waitlist
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/acctKeys"

local K = acctKeys()
local email = ARGV[1]
if redis.call('HEXISTS', K.emails, email) == 1 or redis.call('HEXISTS', K.waitlist, email) == 1 then
  return cmsgpack.pack({ ok = true })
end
local max = tonumber(ARGV[3])
if redis.call('HLEN', K.waitlist) >= max then
  return fail('limit_reached', 'the waitlist is full (' .. max .. ' entries); try again later', { limit = max })
end
redis.call('HSET', K.waitlist, email, cmsgpack.pack({ email = email, note = ARGV[2], at = nowMs(), state = 'pending' }))
return cmsgpack.pack({ ok = true })
