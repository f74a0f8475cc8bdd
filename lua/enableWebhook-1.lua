--[[
  Re-enables a disabled webhook (disabled because its creator left the team, or by a 410): it
  gets the events posted from now on, never those posted while it was disabled (its deliveries
  start at enabled_at; enqueueDeliveries and beginFanout read it before created_at). Who
  re-enabled it is kept (enabled_via): the webhook is then theirs too, so it is disabled again
  when they leave (revokeMemberKeys).

  KEYS[1]  the team's webhooks hash
  ARGV[1]  webhook id
  ARGV[2]  msgpack via of who re-enables it {kind, id, label?, person?}

  Returns {record (disabled_at and disabled_reason cleared; the caller shows no secret),
  was = the disabled_reason it had ('' when none)}; not_found; conflict (it is active).
  Effects  webhooks
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/webhookOf"

local h, missing = webhookOf(KEYS[1], ARGV[1])
if not h then return missing end
if not h.disabled_at then
  return fail('conflict', 'webhookId: webhook ' .. ARGV[1] .. ' is active; only a disabled one can be re-enabled',
    { field = 'webhookId' })
end
local was = h.disabled_reason or ''
h.disabled_at = nil
h.disabled_reason = nil
h.enabled_at = nowMs()
h.enabled_via = cmsgpack.unpack(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], cmsgpack.pack(h))
return cmsgpack.pack({ record = h, was = was })
