--[[
  Claims due deliveries of a team for one node, each under a lease (includes/lease: KEYS[5] and
  KEYS[7] are the deliveries' lease set). A lease that ran out (its node died or stalled) makes the delivery
  claimable again, first in line: BullMQ's stalled-job pattern.
  Deliveries of a deleted or disabled webhook are dropped here, so none is sent after the delete.
  Every claim counts as an attempt (n + 1), a taken-over one too; a taken-over delivery that
  already had ARGV[4] attempts plus TAKEOVER_EXTRA is failed instead of claimed: an attempt cut
  off by a stopping or dying node is tried again even when it was the last of the schedule, and
  a delivery that keeps killing its node (or whose nodes keep stopping) still ends.

  A team with no webhook left has its deliveries deleted instead (deliveries of deleted webhooks
  would otherwise stay until due, or forever once the team leaves the schedule): up to
  CLEAR_BATCH ids of each set per call; `more` stays true until none is left.

  KEYS[1]  the team's webhooks hash
  KEYS[2]  the team's webhook health hash
  KEYS[3]  the team's deliveries hash
  KEYS[4]  the team's due deliveries (sorted set: id -> due ms)
  KEYS[5]  the team's leased deliveries (sorted set: id -> lease end ms)
  KEYS[6]  the team's hinted rooms
  KEYS[7]  the team's delivery lease tokens (hash: delivery id -> "<token>:<end>")
  ARGV[1]  the claiming node's name (host:pid:random), kept as the delivery's `holder` for
           operators; the lease's token is its own (each claimed delivery's `token`)
  ARGV[2]  most deliveries to claim (0: none, just report)
  ARGV[3]  lease (ms)
  ARGV[4]  most attempts a delivery gets (the first and every retry of the schedule)
  ARGV[5]  failures kept per webhook in its health's `recent`

  Returns {claimed = [delivery with its lease's token], next? = earliest due time or lease end (ms;
  nil when the team has nothing pending),
  more = true when due deliveries were left unclaimed (or deliveries of a team without webhooks
  are left to delete), hinted = rooms waiting for fan-out, webhooks = webhooks registered, now}.
  Effects  deliveries
]]
--- @include "includes/nowMs"
--- @include "includes/lease"
--- @include "includes/webhookHealth"

local CLEAR_BATCH = 1000
-- Attempts a delivery may get beyond its schedule through takeovers: an attempt cut off by a
-- node's shutdown (a rolling deploy) or death is tried again even when it was the last one, but a
-- delivery that keeps killing or stalling its node still ends.
local TAKEOVER_EXTRA = 2
local now = nowMs()
local L = leaseSet(KEYS[5], KEYS[7])
local holder, max, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local maxAttempts, keep = tonumber(ARGV[4]), tonumber(ARGV[5])

if redis.call('HLEN', KEYS[1]) == 0 then
  local due = redis.call('ZRANGE', KEYS[4], 0, CLEAR_BATCH - 1)
  if #due > 0 then
    redis.call('HDEL', KEYS[3], unpack(due))
    redis.call('ZREM', KEYS[4], unpack(due))
  end
  local leased = redis.call('ZRANGE', KEYS[5], 0, CLEAR_BATCH - 1)
  if #leased > 0 then
    redis.call('HDEL', KEYS[3], unpack(leased))
    leaseDrop(L, leased)
  end
  local left = redis.call('ZCARD', KEYS[4]) + redis.call('ZCARD', KEYS[5])
  -- Every delivery is in one of the two sets; anything else in the hash is a stray, and so is
  -- a token whose delivery a node of the version before kept tokens apart removed.
  if left == 0 then redis.call('DEL', KEYS[3], KEYS[7]) end
  return cmsgpack.pack({ claimed = {}, now = now, hinted = redis.call('ZCARD', KEYS[6]), webhooks = 0,
    more = left > 0 })
end

local candidates = {}
if max > 0 then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now, 'LIMIT', 0, max)) do
    candidates[#candidates + 1] = { id = id, stalled = true }
  end
  if #candidates < max then
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, max - #candidates)) do
      candidates[#candidates + 1] = { id = id }
    end
  end
end

local hooks, claimed = {}, {}
local health = healthCache(KEYS[2])
local function hookOf(id)
  if hooks[id] == nil then
    local raw = redis.call('HGET', KEYS[1], id)
    hooks[id] = raw and cmsgpack.unpack(raw) or false
  end
  return hooks[id]
end
local function remove(id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[4], id)
  leaseDrop(L, { id })
end

for _, c in ipairs(candidates) do
  local raw = redis.call('HGET', KEYS[3], c.id)
  local d = raw and cmsgpack.unpack(raw)
  local h = d and hookOf(d.wh)
  if not h or h.disabled_at then
    remove(c.id)
    if h then
      local hh = health.get(h.id)
      hh.pending = math.max(0, hh.pending - 1)
      hh.dropped = hh.dropped + 1
    end
  elseif c.stalled and d.n >= maxAttempts + TAKEOVER_EXTRA then
    remove(c.id)
    health.fail(h.id, { id = c.id, room = d.room, ev = d.ev, n = d.n, at = now,
      error = 'no outcome: the lease of its last attempt ran out (the node running it died or stalled)' }, keep)
  else
    d.n = d.n + 1
    d.holder = holder
    -- A per-delivery token that nodes without lease sets may hold; cleared so that such a node,
    -- during a rolling deploy, cannot settle a delivery taken over from it.
    d.lease = nil
    redis.call('HSET', KEYS[3], c.id, cmsgpack.pack(d))
    redis.call('ZREM', KEYS[4], c.id)
    -- Free: a due delivery is never in the lease set, and a stalled one's lease ran out.
    d.token = leaseClaim(L, c.id, now, lease)
    if c.stalled then
      local hh = health.get(h.id)
      hh.takeovers = hh.takeovers + 1
    end
    claimed[#claimed + 1] = d
  end
end
health.save()

local out = {
  claimed = claimed, now = now, hinted = redis.call('ZCARD', KEYS[6]), webhooks = redis.call('HLEN', KEYS[1]),
}
for _, key in ipairs({ KEYS[4], KEYS[5] }) do
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] then
    local at = tonumber(first[2])
    if not out.next or at < out.next then out.next = at end
  end
end
out.more = redis.call('ZCOUNT', KEYS[4], '-inf', now) > 0
return cmsgpack.pack(out)
