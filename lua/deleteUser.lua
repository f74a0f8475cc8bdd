--[[
  Deletes a person: their record, address, sign-in identities, membership, every session and
  every sign-in link still out for the address. A
  team's owner may go only as its last member; then every invite of the team goes too (records
  and link tokens), and the caller removes the team itself (keys, rooms, webhooks; see
  Teams.deleteTeam in src/auth/teams.ts).

  KEYS[accounts]  the accounts directory (ACCOUNT_KEYS, includes/acctKeys)
  ARGV[1]  user id
  ARGV[2]  user id of the team owner removing this member ('' when people delete themselves)

  Returns {user, last = bool (no member of the team remains)}; not_found, forbidden (the remover
  is not the member's team owner), conflict (an owner whose team has other members).
  Effects  users, members, tokens, invites, sessions
]]
--- @include "includes/fail"
--- @include "includes/acct"

local K = acctKeys()
local raw = redis.call('HGET', K.users, ARGV[1])
if not raw then return fail('not_found', 'no such user', { field = 'user' }) end
local u = cmsgpack.unpack(raw)
if ARGV[2] ~= '' and ARGV[2] ~= u.id then
  local oraw = redis.call('HGET', K.users, ARGV[2])
  local o = oraw and cmsgpack.unpack(oraw)
  if not o or o.role ~= 'owner' or o.team ~= u.team then
    return fail('forbidden', 'only the team\'s owner may remove a member')
  end
end
local others = 0
for _, id in ipairs(teamMembers(K, u.team)) do
  if id ~= u.id then others = others + 1 end
end
if u.role == 'owner' and others > 0 then
  return fail('conflict', 'the team has ' .. others .. ' other member(s); remove them first, then delete the account',
    { field = 'members', members = others })
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
  local flat = redis.call('HGETALL', K.invites)
  for i = 1, #flat, 2 do
    local inv = cmsgpack.unpack(flat[i + 1])
    if inv.team == u.team then
      redis.call('HDEL', K.invites, flat[i])
      dropToken(K, inv.hash)
    end
  end
end
return cmsgpack.pack({ user = u, last = others == 0 })
