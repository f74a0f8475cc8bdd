--[[
  Deletes a webhook and its health. None of its deliveries is claimed after this script ran:
  finding them here would mean scanning all the team's deliveries, so claimDeliveries drops each
  unsent when it comes due, or deletes them all (in batches) once the team has no webhook left.

  KEYS[1]  the team's webhooks hash
  KEYS[2]  the team's webhook health hash
  ARGV[1]  webhook id

  Returns {record, health? (its last delivery health, as stored; nil when it never had one),
  remaining = webhooks left}; not_found.
  Effects  webhooks
]]
--- @include "includes/fail"
--- @include "includes/webhookOf"

local record, missing = webhookOf(KEYS[1], ARGV[1])
if not record then return missing end
local health = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return cmsgpack.pack({
  record = record,
  health = health and cmsgpack.unpack(health) or nil,
  remaining = redis.call('HLEN', KEYS[1]),
})
