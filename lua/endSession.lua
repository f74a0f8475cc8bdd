--[[
  Ends a session (sign-out): the token stops working at once, on every node.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  sha256 of the session token

  Returns {ended = bool}.
  Effects  sessions
]]
--- @include "includes/acct"

return cmsgpack.pack({ ended = dropSession(acctKeys(), ARGV[1]) })
