--[[
  Ends a node's pass over a team by releasing its lease (includes/lease) with when the team is
  next looked at; or removes a team that has no webhook left and none being registered lately.
  Unless the pass no longer holds the team: a wake pulled its score earlier (which ended the
  lease), or the pass stalled past its lease and another took the team. The next time then only
  moves the team earlier, never later: a wake's time or another pass's lease is kept when it is
  sooner, and the time this pass wanted (now, with more due) when it is. Two passes over one team
  are safe, so ending another pass's lease early costs nothing but a pass.

  KEYS[1]  the webhook teams (sorted set): the lease set's ends
  KEYS[2]  the webhook registrations (sorted set: team id -> when one was last being registered)
  KEYS[3]  the passes' lease tokens (hash: team id -> "<token>:<end>")
  ARGV[1]  team id
  ARGV[2]  the lease token claimTeams gave the pass
  ARGV[3]  next time (ms, Redis time; a busy team gets the claim's `now`, not 0, so it queues
           behind teams that were due before it)
  ARGV[4]  '1' when the team has no webhook left and nothing of them in its slot: the team's
           keys are in another slot, so claimDeliveries deletes what deleted webhooks left
           there, a batch per pass, and the pass passes '1' only once that is done
  ARGV[5]  grace (ms): a team with a registration this recent is kept

  Returns {done = 'rescheduled' | 'woken' (not held: at most moved earlier) | 'removed' | 'absent'}.
  Effects  deliveries
]]
--- @include "includes/nowMs"
--- @include "includes/lease"

local team, token, next = ARGV[1], ARGV[2], tonumber(ARGV[3])
local L = leaseSet(KEYS[1], KEYS[3])
if not redis.call('ZSCORE', KEYS[1], team) then return cmsgpack.pack({ done = 'absent' }) end
if not leaseHeld(L, team, token) then
  redis.call('ZADD', KEYS[1], 'XX', 'LT', next, team)
  return cmsgpack.pack({ done = 'woken' })
end
if ARGV[4] == '1' then
  local reg = tonumber(redis.call('ZSCORE', KEYS[2], team) or '0')
  if reg < nowMs() - tonumber(ARGV[5]) then
    leaseRelease(L, team, token)
    redis.call('ZREM', KEYS[2], team)
    return cmsgpack.pack({ done = 'removed' })
  end
end
leaseRelease(L, team, token, next)
return cmsgpack.pack({ done = 'rescheduled' })
