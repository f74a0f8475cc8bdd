--[[
  Registers a webhook of a team.

  KEYS[1]  the team's webhooks hash (id -> msgpack record)
  KEYS[2]  the team's webhook health hash
  ARGV[1]  msgpack record {id, url, secret, description?, events?, created_via?}
  ARGV[2]  most webhooks a team may have

  Returns {record} with created_at set (Redis time: the webhook gets the events posted from then
  on); limit_reached.
  Effects  webhooks
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/webhookHealth"

local rec, limit = cmsgpack.unpack(ARGV[1]), tonumber(ARGV[2])
local n = redis.call('HLEN', KEYS[1])
if n >= limit then
  return fail('limit_reached', 'the team has ' .. n .. ' webhooks; the limit is ' .. limit .. '; delete one first',
    { field = 'webhooks', limit = limit })
end
rec.created_at = nowMs()
redis.call('HSET', KEYS[1], rec.id, cmsgpack.pack(rec))
local health = healthCache(KEYS[2])
health.get(rec.id)
health.save()
return cmsgpack.pack({ record = rec })
