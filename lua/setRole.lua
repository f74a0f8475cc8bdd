--[[
  Changes a person's role in their team. The team always keeps an owner: its last owner cannot
  become anything else.

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  user id of the person whose role changes
  ARGV[2]  the new role: owner, admin, member or viewer
  ARGV[3]  user id of the person changing it, of the same team
  ARGV[4]  the roles that may change roles, comma-separated (src/auth/permissions.ts, members.roles)

  Returns {user}; not_found (no such person in the team), forbidden (the changer is not of the
  team or has no role that may), conflict (the team's last owner would have none left),
  invalid_request (an unknown role).
  Effects  users
]]
--- @include "includes/fail"
--- @include "includes/acct"

local K = acctKeys()
local role = ARGV[2]
if role ~= 'owner' and role ~= 'admin' and role ~= 'member' and role ~= 'viewer' then
  return fail('invalid_request', 'role: must be owner, admin, member or viewer', { field = 'role' })
end
local braw = redis.call('HGET', K.users, ARGV[3])
local by = braw and cmsgpack.unpack(braw)
local raw = redis.call('HGET', K.users, ARGV[1])
local u = raw and cmsgpack.unpack(raw)
if not by or not string.find(',' .. ARGV[4] .. ',', ',' .. by.role .. ',', 1, true) then
  return fail('forbidden', 'changing people\'s roles needs the role ' .. ARGV[4]
    .. (by and ('; you are ' .. by.role) or ''))
end
if not u or u.team ~= by.team then return fail('not_found', 'user: no such person in the team', { field = 'user' }) end
if u.role == 'owner' and role ~= 'owner' then
  local owners = 0
  for _, id in ipairs(teamMembers(K, u.team)) do
    local m = redis.call('HGET', K.users, id)
    if m and cmsgpack.unpack(m).role == 'owner' then owners = owners + 1 end
  end
  if owners <= 1 then
    return fail('conflict', 'role: ' .. u.email .. ' is the team\'s last owner; make another person an owner first',
      { field = 'role' })
  end
end
u.role = role
redis.call('HSET', K.users, u.id, cmsgpack.pack(u))
return cmsgpack.pack({ user = u })
