--[[
  Deletes a person: their record, address, sign-in identities, membership, every session and
  every sign-in link still out for the address. The team's last owner may go only as its last
  member; then every invite of the team goes too (records and link tokens), and the caller
  removes the team itself (keys, rooms, webhooks; see Teams.deleteTeam in src/auth/teams.ts).

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  user id
  ARGV[2]  user id of the person of the team removing this one ('' when people delete themselves)
  ARGV[3]  the roles that may remove a member, comma-separated (permissions.ts, members.manage)
  ARGV[4]  the roles that may remove an owner, comma-separated (permissions.ts, members.roles)

  Returns {user, last = bool (no member of the team remains)}; not_found (no such user, or one of
  another team than the remover's: the same answer), forbidden (the remover has no role that may
  remove this person, or is no longer a person at all), conflict (the last owner of a
  team that has other members).
  Effects  users, members, tokens, invites, sessions
]]
--- @include "includes/fail"
--- @include "includes/acct"

local K = acctKeys()
local raw = redis.call('HGET', K.users, ARGV[1])
local u = raw and cmsgpack.unpack(raw)
local o
if ARGV[2] ~= '' and ARGV[2] ~= ARGV[1] then
  local oraw = redis.call('HGET', K.users, ARGV[2])
  o = oraw and cmsgpack.unpack(oraw)
end
-- A person of another team is, to the remover, as absent as an unknown id: one answer for both.
if not u or (o and o.team ~= u.team) then
  return fail('not_found', 'user: no such person in the team', { field = 'user' })
end
if ARGV[2] ~= '' and ARGV[2] ~= u.id then
  local may = u.role == 'owner' and ARGV[4] or ARGV[3]
  if not o or not string.find(',' .. may .. ',', ',' .. o.role .. ',', 1, true) then
    return fail('forbidden', (u.role == 'owner' and 'removing an owner' or 'removing a member')
      .. ' needs the role ' .. may .. (o and ('; you are ' .. o.role) or ''))
  end
end
local others, owners = 0, 0
for _, id in ipairs(teamMembers(K, u.team)) do
  if id ~= u.id then
    others = others + 1
    local m = redis.call('HGET', K.users, id)
    if m and cmsgpack.unpack(m).role == 'owner' then owners = owners + 1 end
  end
end
if u.role == 'owner' and others > 0 and owners == 0 then
  return fail('conflict', 'the last owner cannot leave: the team has ' .. others .. ' other member(s); make one of '
    .. 'them an owner, or remove them, first', { field = 'members', members = others })
end
redis.call('HDEL', K.users, u.id)
if redis.call('HGET', K.emails, u.email) == u.id then redis.call('HDEL', K.emails, u.email) end
for _, ident in ipairs(u.idents or {}) do redis.call('HDEL', K.idents, ident) end
redis.call('ZREM', K.members, u.team .. '|' .. u.id)
dropUserSessions(K, u.id)
-- Sign-in links still out for the address go too (the address is the person's).
local toks = redis.call('HGETALL', K.tokens)
for i = 1, #toks, 2 do
  if cmsgpack.unpack(toks[i + 1]).email == u.email then dropToken(K, toks[i]) end
end
if others == 0 then
  indexInvites(K)
  for _, inv in ipairs(teamInvites(K, u.team)) do
    dropInvite(K, inv)
    dropToken(K, inv.hash)
  end
end
return cmsgpack.pack({ user = u, last = others == 0 })
