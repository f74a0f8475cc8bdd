--[[
  A team's people in one read: its members' records and its invites (every state).

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  team id

  Returns {members = [user], invites = [invite]}.
  Effects  none
]]
--- @include "includes/acct"

local K = acctKeys()
local team = ARGV[1]
local members, invites = {}, {}
for _, id in ipairs(teamMembers(K, team)) do
  local raw = redis.call('HGET', K.users, id)
  if raw then members[#members + 1] = cmsgpack.unpack(raw) end
end
if redis.call('HLEN', K.invites) == redis.call('ZCARD', K.tinvites) then
  invites = teamInvites(K, team)
else
  -- Invites stored before the team index existed, until an invite script indexes them.
  for _, raw in ipairs(redis.call('HVALS', K.invites)) do
    local inv = cmsgpack.unpack(raw)
    if inv.team == team then invites[#invites + 1] = inv end
  end
end
return cmsgpack.pack({ members = members, invites = invites })
