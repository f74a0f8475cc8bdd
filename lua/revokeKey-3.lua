--[[
  Revokes a team key or an invite: its secret stops authenticating at once (nodes drop their
  cached copy when the node that revoked it publishes the revocation; see src/auth/keyring.ts).
  The record stays, marked revoked_at, so listings show what was revoked and when, for the
  retention (REVOKED_KEY_RETENTION_S), 100 at most per team (or per team's room invites); older
  ones and the oldest past that are deleted here (and in mintKey).

  KEYS[1]  team hash
  KEYS[2]  records hash (team keys, or invites)
  KEYS[3]  secrets hash
  ARGV[1]  'k' (team key) or 'i' (invite)
  ARGV[2]  record id
  ARGV[3]  for invites: the room id the invite must belong to ('' for team keys)
  ARGV[4]  retention of revoked records (ms)
  ARGV[5]  a user id: the record must be one this person minted (created_by), else forbidden;
           '' for any record (a revoker who may revoke others' keys)

  Returns {record, hash}; not_found (no such live record), forbidden (minted by someone else),
  conflict (the team's last live key).
  Effects  keys
]]
--- @include "includes/fail"
--- @include "includes/revoked"

local kind, id, room = ARGV[1], ARGV[2], ARGV[3]
local field = kind == 'k' and 'keyId' or 'tokenId'
local raw = redis.call('HGET', KEYS[2], id)
local rec = raw and cmsgpack.unpack(raw)
if not rec or rec.revoked_at or (kind == 'i' and rec.room_id ~= room) then
  return fail('not_found', field .. ': no live ' .. (kind == 'k' and 'key ' or 'invite ') .. id, { field = field })
end
local only = ARGV[5] or ''
if only ~= '' and rec.created_by ~= only then
  return fail('forbidden', field .. ': ' .. id .. ' was minted by someone else', { field = field })
end
local records = {}
for _, r in ipairs(redis.call('HVALS', KEYS[2])) do records[#records + 1] = cmsgpack.unpack(r) end
if kind == 'k' then
  local live = 0
  for _, r in ipairs(records) do
    if not r.revoked_at then live = live + 1 end
  end
  if live <= 1 then
    return fail('conflict', 'keyId: ' .. id
      .. ' is the team\'s last live key; mint another key first, then revoke this one',
      { field = field })
  end
end
local t = redis.call('TIME')
rec.revoked_at = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[2], id, cmsgpack.pack(rec))
for i, r in ipairs(records) do
  if r.id == id then records[i] = rec end
end
pruneRevoked(KEYS[2], records, rec.revoked_at, tonumber(ARGV[4] or '2592000000'))
redis.call('HDEL', KEYS[3], rec.hash)
return cmsgpack.pack({ record = rec, hash = rec.hash })
