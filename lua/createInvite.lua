--[[
  Stores an invite and its single-use link token (hashed). A person whose role may invite (ARGV[6])
  invites an address to their team as a member; an operator invites an address to a new team (its owner) or, at first
  start, the default team's owner.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  msgpack invite {id, email, team, role, new_team, by}
  ARGV[2]  sha256 of the invite's token      ARGV[3]  lifetime (ms)
  ARGV[4]  user id of the inviter, a person of the team ('' for an operator)
  ARGV[5]  most pending invites a team may have
  ARGV[6]  the roles that may invite, comma-separated (src/auth/permissions.ts, members.manage)

  Returns {invite}; forbidden (the inviter is not of the team, or has no role that may invite),
  conflict (the address is a member of this team already, or has a pending invite to it; for an
  operator also: the address has an account in any team), limit_reached.
  A person inviting an address that has an account in another team gets the answer a new address
  gets, so the form tells nothing about other teams: the invite is stored and mailed, and its link
  then tells the address's owner that a person belongs to one team (consumeToken).
  Effects  tokens, invites
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/acct"

local K = acctKeys()
local now = nowMs()
local inv = cmsgpack.unpack(ARGV[1])
if ARGV[4] ~= '' then
  local uraw = redis.call('HGET', K.users, ARGV[4])
  local u = uraw and cmsgpack.unpack(uraw)
  if not u or u.team ~= inv.team or not string.find(',' .. ARGV[6] .. ',', ',' .. u.role .. ',', 1, true) then
    return fail('forbidden', 'inviting members needs the role ' .. ARGV[6] .. (u and ('; you are ' .. u.role) or ''))
  end
end
local holder = redis.call('HGET', K.emails, inv.email)
if holder then
  local hraw = redis.call('HGET', K.users, holder)
  local h = hraw and cmsgpack.unpack(hraw)
  if h and h.team == inv.team then
    return fail('conflict', 'email: ' .. inv.email .. ' is a member of this team already', { field = 'email' })
  end
  if ARGV[4] == '' then
    return fail('conflict', 'email: ' .. inv.email .. ' has an account already; a person belongs to one team',
      { field = 'email' })
  end
end
indexInvites(K)
local invites = teamInvites(K, inv.team)
local pending = 0
for _, o in ipairs(invites) do
  if o.state == 'pending' and o.expires_at > now then
    if o.email == inv.email then
      return fail('conflict', 'email: ' .. inv.email
        .. ' has a pending invite to this team; revoke it first to send a new one',
        { field = 'email' })
    end
    pending = pending + 1
  end
end
local max = tonumber(ARGV[5])
if pending >= max then
  return fail('limit_reached', 'the team has ' .. pending .. ' pending invites; the limit is ' .. max
    .. '; revoke one first',
    { field = 'invites', limit = max })
end
pruneAccounts(K, now)
pruneInvites(K, now, invites)
inv.hash, inv.state, inv.created_at, inv.expires_at = ARGV[2], 'pending', now, now + tonumber(ARGV[3])
storeInvite(K, inv)
storeToken(K, ARGV[2], { kind = 'invite', email = inv.email, invite = inv.id }, inv.expires_at)
return cmsgpack.pack({ invite = inv })
