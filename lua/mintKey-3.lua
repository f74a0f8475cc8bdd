--[[
  Stores new credentials of a team: team keys, or room invite keys of one room. All or none: when
  they do not all fit under the limit, none is stored, so no key is minted that its caller does
  not get to show (the dashboard mints one invite per agent of a room in one call).

  KEYS[1]  team hash
  KEYS[2]  records hash (team keys, or invites)
  KEYS[3]  secrets hash (sha256 -> "k:<id>" or "i:<id>")
  ARGV[1]  'k' (team key) or 'i' (invite)
  ARGV[2]  msgpack list of records {id, hash, hint, label?, room_id?, created_by?} (invites: all
           of one room)
  ARGV[3]  most live records of this kind the team (or, for invites, the room) may have
  ARGV[4]  retention of revoked records (ms): older ones are deleted here

  Returns {records}; not_found (no such team), limit_reached (the live ones and these would pass
  the limit; nothing is stored).
]]
--- @include "includes/fail"
--- @include "includes/inSlices"

if redis.call('EXISTS', KEYS[1]) == 0 then return fail('not_found', 'team not found', { field = 'team' }) end
local kind, recs, limit = ARGV[1], cmsgpack.unpack(ARGV[2]), tonumber(ARGV[3])
local room = recs[1] and recs[1].room_id
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live, expired = 0, {}
for _, raw in ipairs(redis.call('HVALS', KEYS[2])) do
  local r = cmsgpack.unpack(raw)
  if not r.revoked_at and (kind == 'k' or r.room_id == room) then live = live + 1 end
  if r.revoked_at and r.revoked_at < now - tonumber(ARGV[4] or '2592000000') then expired[#expired + 1] = r.id end
end
-- Revoked records are kept for the retention only (REVOKED_KEY_RETENTION_S), so the list stays short.
-- Revocations are not limited in number, so neither are the records that expire at once.
inSlices('HDEL', KEYS[2], expired)
if live + #recs > limit then
  local what = kind == 'k' and 'team keys' or 'invites of this room'
  local asked = #recs == 1 and '' or ('; ' .. #recs .. ' more were asked for, ' .. math.max(0, limit - live) .. ' fit')
  return fail('limit_reached', 'there are ' .. live .. ' live ' .. what .. '; the limit is ' .. limit .. asked ..
    '; revoke one first', { field = kind == 'k' and 'keys' or 'invites', limit = limit })
end
for _, rec in ipairs(recs) do
  rec.created_at = now
  redis.call('HSET', KEYS[2], rec.id, cmsgpack.pack(rec))
  redis.call('HSET', KEYS[3], rec.hash, kind .. ':' .. rec.id)
end
return cmsgpack.pack({ records = recs })
