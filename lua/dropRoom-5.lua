--[[
  The team's side of deleting a room: the room leaves the team's room index, every room invite key
  of the room is deleted (a live one stops authenticating at once: its secret goes; the caller
  announces each returned hash on the revocation path, src/auth/keyring.ts), and the webhooks
  forget the room's fan-out position and hint. Run before lua/deleteRoom.lua (another slot): a
  failure between the two leaves a room no invite key reaches, which deleting again finishes.

  KEYS[1]  the team's room invites hash      KEYS[2]  the team's secrets hash
  KEYS[3]  the team's room index             KEYS[4]  webhook fan-out positions
  KEYS[5]  webhook rooms hinted
  ARGV[1]  room id

  Returns {invites = [token id of each invite key deleted], hashes = [sha256 of each live one]}.
  Effects  rooms, keys, deliveries
]]
--- @include "includes/inSlices"
local room = ARGV[1]
local out = { invites = {}, hashes = {} }
local gone = {}
for _, raw in ipairs(redis.call('HVALS', KEYS[1])) do
  local rec = cmsgpack.unpack(raw)
  if rec.room_id == room then
    gone[#gone + 1] = rec.id
    out.invites[#out.invites + 1] = rec.id
    if not rec.revoked_at then
      redis.call('HDEL', KEYS[2], rec.hash)
      out.hashes[#out.hashes + 1] = rec.hash
    end
  end
end
inSlices('HDEL', KEYS[1], gone)
redis.call('ZREM', KEYS[3], room)
redis.call('HDEL', KEYS[4], room)
redis.call('ZREM', KEYS[5], room)
return cmsgpack.pack(out)
