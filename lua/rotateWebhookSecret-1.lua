--[[
  Gives a webhook a new secret. The one it replaces keeps signing beside it until the overlap ends
  (src/webhooks/signing.ts says how), so receivers can switch without losing a delivery. A second
  rotation during an overlap replaces the previous secret: only the two newest ever sign.

  KEYS[1]  the team's webhooks hash
  ARGV[1]  webhook id
  ARGV[2]  the new secret
  ARGV[3]  overlap (ms; 0: the previous secret stops signing at once)

  Returns {record} (the stored record, secrets included: the caller shows none of them but the new
  one); not_found.
  Effects  webhooks
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/webhookOf"

local h, missing = webhookOf(KEYS[1], ARGV[1])
if not h then return missing end
local overlap = tonumber(ARGV[3])
if overlap > 0 then
  h.prev_secret = h.secret
  h.prev_until = nowMs() + overlap
else
  h.prev_secret = nil
  h.prev_until = nil
end
h.secret = ARGV[2]
h.rotated_at = nowMs()
redis.call('HSET', KEYS[1], ARGV[1], cmsgpack.pack(h))
return cmsgpack.pack({ record = h })
