--[[
  Marks a team as having webhooks, before its webhook is stored: a crash in between leaves a team
  with none, which a pass removes after the grace; the reverse order could leave a webhook whose
  team no node ever looks at.

  KEYS[1]  the webhook teams (sorted set)
  KEYS[2]  the webhook registrations (sorted set)
  ARGV[1]  team id

  Returns {}. The team is due at once (its score is now, or stays earlier: scores are times, so
  teams due at once are taken in the order they became due).
  Effects  webhooks
]]
--- @include "includes/nowMs"

local now = nowMs()
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZADD', KEYS[1], 'LT', now, ARGV[1])
return cmsgpack.pack({})
