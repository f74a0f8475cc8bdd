--[[
  Ends a node's pass over a team by releasing its lease (includes/lease) with when the team is
  next looked at; or removes a team that has no webhook left and none being registered lately.
  Unless someone woke the team meanwhile: the wake pulled its score earlier, which ended the
  pass's lease, so the team stays due and nothing changes.

  KEYS[1]  the webhook teams (sorted set)
  KEYS[2]  the webhook registrations (sorted set: team id -> when one was last being registered)
  ARGV[1]  team id
  ARGV[2]  the lease token claimTeams gave the pass
  ARGV[3]  next time (ms, Redis time; a busy team gets the claim's `now`, not 0, so it queues
           behind teams that were due before it)
  ARGV[4]  '1' when the team has no webhook left and nothing of them in its slot: the team's
           keys are in another slot, so claimDeliveries deletes what deleted webhooks left
           there, a batch per pass, and the pass passes '1' only once that is done
  ARGV[5]  grace (ms): a team with a registration this recent is kept

  Returns {done = 'rescheduled' | 'woken' (left due) | 'removed' | 'absent'}.
]]
--- @include "includes/nowMs"
--- @include "includes/lease"

local team, token = ARGV[1], ARGV[2]
if not redis.call('ZSCORE', KEYS[1], team) then return cmsgpack.pack({ done = 'absent' }) end
if not leaseHeld(KEYS[1], team, token) then return cmsgpack.pack({ done = 'woken' }) end
if ARGV[4] == '1' then
  local reg = tonumber(redis.call('ZSCORE', KEYS[2], team) or '0')
  if reg < nowMs() - tonumber(ARGV[5]) then
    leaseRelease(KEYS[1], team, token)
    redis.call('ZREM', KEYS[2], team)
    return cmsgpack.pack({ done = 'removed' })
  end
end
leaseRelease(KEYS[1], team, token, tonumber(ARGV[3]))
return cmsgpack.pack({ done = 'rescheduled' })
