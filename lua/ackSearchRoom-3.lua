--[[
  Ends an indexer's hold on a room by releasing its lease (includes/lease), if the caller's token
  still holds it (claimSearchRooms). After a sync that succeeded the lease is
  released and the room's mark cleared, unless it was marked again since the claim (then it
  stays, for the next sync). After a failure the room stays marked and the lease is released
  with a wait: the room may not be claimed again for `retry` ms. A caller whose lease ran out and
  went to another node changes nothing: that node's lease and the mark stay until it acks.

  KEYS[1]  dirty rooms (sorted set: room -> mark counter)
  KEYS[2]  leases (sorted set: room -> until when it is held or must wait, ms)
  KEYS[3]  the leases' tokens (hash: room -> "<token>:<end>")
  ARGV[1]  "<teamId>/<roomId>"
  ARGV[2]  the mark counter seen when claimed
  ARGV[3]  retry (ms): 0 after a success
  ARGV[4]  the lease token held

  Returns {cleared = bool, held = bool}: whether the room is no longer marked, and whether the
  caller still held it.
  Effects  search
]]
--- @include "includes/nowMs"
--- @include "includes/lease"

local room, seen, retry, token = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
if not leaseRelease(leaseSet(KEYS[2], KEYS[3]), room, token, retry > 0 and nowMs() + retry or nil) then
  return cmsgpack.pack({ cleared = redis.call('ZSCORE', KEYS[1], room) == false, held = false })
end
if retry > 0 then return cmsgpack.pack({ cleared = false, held = true }) end
local mark = redis.call('ZSCORE', KEYS[1], room)
if mark and tonumber(mark) <= seen then
  redis.call('ZREM', KEYS[1], room)
  mark = nil
end
return cmsgpack.pack({ cleared = mark == nil, held = true })
