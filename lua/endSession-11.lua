--[[
  Ends a session (sign-out): the token stops working at once, on every node.

  KEYS[1..11]  the accounts directory (lua/includes/acctKeys.lua)
  ARGV[1]  sha256 of the session token

  Returns {ended = bool}.
]]
--- @include "includes/acct"

return cmsgpack.pack({ ended = dropSession(acctKeys(), ARGV[1]) })
