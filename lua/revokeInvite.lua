--[[
  Revokes a pending invite: its link stops working at once. The record stays, marked revoked.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  invite id
  ARGV[2]  the team it must belong to ('' for an operator: any team)

  Returns {invite}; not_found (no pending invite with this id in this team).
  Effects  tokens, invites
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/acct"

local K = acctKeys()
local raw = redis.call('HGET', K.invites, ARGV[1])
local inv = raw and cmsgpack.unpack(raw)
if not inv or inv.state ~= 'pending' or (ARGV[2] ~= '' and inv.team ~= ARGV[2]) then
  return fail('not_found', 'inviteId: no pending invite ' .. ARGV[1], { field = 'inviteId' })
end
local now = nowMs()
inv.state, inv.revoked_at = 'revoked', now
storeInvite(K, inv)
pruneInvites(K, now)
dropToken(K, inv.hash)
return cmsgpack.pack({ invite = inv })
