--[[
  Picks teams whose webhook work is due, for one node's pass, and pushes each one's time back by
  a short lease so other nodes pick other teams meanwhile. The pass then sets the team's real next
  time (rescheduleTeam); a node that dies mid-pass only delays the team by the lease.

  KEYS[1]  the webhook teams (sorted set: team id -> when to look at it next, ms). A team woken
           or left busy gets the current time, never 0, so the longest-waiting due team goes
           first (ties by name).
  ARGV[1]  most teams to pick
  ARGV[2]  lease (ms)

  Returns {teams = [team id], lease = the score each picked team now has, now}.
]]
--- @include "includes/nowMs"

local now = nowMs()
local lease = now + tonumber(ARGV[2])
local teams = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, team in ipairs(teams) do redis.call('ZADD', KEYS[1], lease, team) end
return cmsgpack.pack({ teams = teams, lease = lease, now = now })
