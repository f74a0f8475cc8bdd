--[[
  Stores new credentials of a team: team keys, or room invite keys of one room. All or none: when
  they do not all fit under the limit, none is stored, so no key is minted that its caller does
  not get to show (the dashboard mints one invite per agent of a room in one call).

  Each record says who minted it (created_by, a person's user id), so that removing that person
  from the team revokes it (revokeMemberKeys): a person minting on the dashboard, or a team key
  minted by one (created_by inherited, so a key minted through the admin API with a member's key
  goes with that member). A key of no person (the team's first key, operator tools, keys minted
  before created_by was recorded) passes none on.

  KEYS[1]  team hash
  KEYS[2]  records hash (team keys, or invites)
  KEYS[3]  secrets hash (sha256 -> "k:<id>" or "i:<id>")
  KEYS[4]  team keys hash (the minting key's record; the same as KEYS[2] for a team key)
  ARGV[1]  'k' (team key) or 'i' (invite)
  ARGV[2]  msgpack list of records {id, hash, hint, label?, room_id?} (invites: all of one room)
  ARGV[3]  most live records of this kind the team (or, for invites, the room) may have
  ARGV[4]  retention of revoked records (ms): older ones are deleted here, and the oldest past the
           cap of includes/revoked
  ARGV[5]  who mints: 'u:<userId>' (a person), 'k:<keyId>' (a team key, through the admin API) or
           '' (operator tools)

  Returns {records}; not_found (no such team), limit_reached (the live ones and these would pass
  the limit; nothing is stored), unauthorized (the minting key was revoked meanwhile: its person
  was removed a moment before).
  Effects  keys
]]
--- @include "includes/fail"
--- @include "includes/revoked"

if redis.call('EXISTS', KEYS[1]) == 0 then return fail('not_found', 'team not found', { field = 'team' }) end
local kind, recs, limit = ARGV[1], cmsgpack.unpack(ARGV[2]), tonumber(ARGV[3])
local room = recs[1] and recs[1].room_id
local by, createdBy = ARGV[5] or '', nil
if string.sub(by, 1, 2) == 'u:' then
  createdBy = string.sub(by, 3)
elseif string.sub(by, 1, 2) == 'k:' then
  -- Read here, with the revocation that removing a person makes (same slot): a key of a person
  -- removed a moment ago mints nothing that would outlive the removal.
  local raw = redis.call('HGET', KEYS[4], string.sub(by, 3))
  local minter = raw and cmsgpack.unpack(raw)
  if not minter or minter.revoked_at then return fail('unauthorized', 'this key was revoked') end
  createdBy = minter.created_by
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live, records = 0, {}
for _, raw in ipairs(redis.call('HVALS', KEYS[2])) do
  local r = cmsgpack.unpack(raw)
  if not r.revoked_at and (kind == 'k' or r.room_id == room) then live = live + 1 end
  records[#records + 1] = r
end
pruneRevoked(KEYS[2], records, now, tonumber(ARGV[4] or '2592000000'))
if live + #recs > limit then
  local what = kind == 'k' and 'team keys' or 'invites of this room'
  local asked = #recs == 1 and '' or ('; ' .. #recs .. ' more were asked for, ' .. math.max(0, limit - live) .. ' fit')
  return fail('limit_reached', 'there are ' .. live .. ' live ' .. what .. '; the limit is ' .. limit .. asked ..
    '; revoke one first', { field = kind == 'k' and 'keys' or 'invites', limit = limit })
end
for _, rec in ipairs(recs) do
  rec.created_at = now
  rec.created_by = createdBy
  redis.call('HSET', KEYS[2], rec.id, cmsgpack.pack(rec))
  redis.call('HSET', KEYS[3], rec.hash, kind .. ':' .. rec.id)
end
return cmsgpack.pack({ records = recs })
