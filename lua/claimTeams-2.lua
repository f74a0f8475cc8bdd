--[[
  Picks teams whose webhook work is due, for one node's pass, each under a lease
  (includes/lease: the schedule is the teams' lease set) so other nodes pick other teams
  meanwhile. The pass then releases it with the team's real next time (rescheduleTeam); a node
  that dies mid-pass only delays the team by the lease.

  KEYS[1]  the webhook teams (sorted set: team id -> when to look at it next, ms): the lease
           set's ends. A team woken or left busy gets the current time, never 0, so the
           longest-waiting due team goes first (ties by name).
  KEYS[2]  the passes' lease tokens (hash: team id -> "<token>:<end>")
  ARGV[1]  most teams to pick
  ARGV[2]  lease (ms)

  Returns {teams = [team id], token = the lease token each picked team is held by, now}.
  Effects  deliveries
]]
--- @include "includes/nowMs"
--- @include "includes/lease"

local now = nowMs()
local L = leaseSet(KEYS[1], KEYS[2])
local teams = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local token = now + tonumber(ARGV[2])
-- Due means free: each claim gets the same token.
for _, team in ipairs(teams) do leaseClaim(L, team, now, tonumber(ARGV[2])) end
return cmsgpack.pack({ teams = teams, token = token, now = now })
