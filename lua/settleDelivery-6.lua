--[[
  Records the outcome of one delivery attempt and releases its lease (includes/lease), if the
  caller's token still holds it (a node whose lease ran out and was taken over settles nothing:
  the other node's attempt counts).

  KEYS[1]  the team's webhooks hash
  KEYS[2]  the team's webhook health hash
  KEYS[3]  the team's deliveries hash
  KEYS[4]  the team's due deliveries
  KEYS[5]  the team's leased deliveries (the lease set's ends)
  KEYS[6]  the team's delivery lease tokens
  ARGV[1]  the lease token held (claimDeliveries' `token`)
  ARGV[2]  delivery id
  ARGV[3]  outcome: 'ok' (2xx: done), 'retry' (due again after ARGV[6]), 'fail' (no attempt left:
           failed, kept in the webhook's recent failures), 'gone' (410: failed, and the webhook
           is disabled), 'drop' (not attempted: the webhook was deleted or disabled after
           the claim; counted in `dropped`)
  ARGV[4]  HTTP status ('' when no answer came)
  ARGV[5]  error text ('' when none)
  ARGV[6]  delay before the next attempt (ms, from Redis time; retry only)
  ARGV[7]  failures kept per webhook in its health's `recent`
  ARGV[8]  attempts kept per webhook in its health's `attempts` (every outcome but 'drop')

  Returns {settled = true, outcome, at? = when the retry is due (retry only)}, or
  {settled = false} when the token no longer holds the lease.
  Effects  deliveries
]]
--- @include "includes/nowMs"
--- @include "includes/lease"
--- @include "includes/webhookHealth"

local token, id, outcome = ARGV[1], ARGV[2], ARGV[3]
local status, err = tonumber(ARGV[4]), ARGV[5]
local raw = redis.call('HGET', KEYS[3], id)
if not raw then return cmsgpack.pack({ settled = false }) end
local d = cmsgpack.unpack(raw)
if not leaseRelease(leaseSet(KEYS[5], KEYS[6]), id, token) then return cmsgpack.pack({ settled = false }) end
local now = nowMs()

local hraw = redis.call('HGET', KEYS[1], d.wh)
local health = healthCache(KEYS[2])
local hh = hraw and health.get(d.wh)
if hh and outcome ~= 'drop' then
  hh.last_attempt_at = now
  hh.last_status = status
  hh.last_error = err ~= '' and err or nil
  health.attempt(d.wh, { id = id, room = d.room, ev = d.ev, n = d.n, at = now, outcome = outcome, status = status,
    error = err ~= '' and err or nil }, tonumber(ARGV[8]))
end
if not hraw and outcome == 'retry' then outcome = 'fail' end -- the webhook was deleted meanwhile
local retryAt = nil

if outcome == 'retry' then
  d.holder = nil
  d.last_status = status
  d.last_error = err ~= '' and err or nil
  redis.call('HSET', KEYS[3], id, cmsgpack.pack(d))
  retryAt = now + tonumber(ARGV[6])
  redis.call('ZADD', KEYS[4], retryAt, id)
  if hh then hh.consecutive_failures = hh.consecutive_failures + 1 end
else
  redis.call('HDEL', KEYS[3], id)
  if hh then
    if outcome == 'drop' then
      hh.pending = math.max(0, hh.pending - 1)
      hh.dropped = hh.dropped + 1
    elseif outcome == 'ok' then
      hh.pending = math.max(0, hh.pending - 1)
      hh.delivered = hh.delivered + 1
      hh.consecutive_failures = 0
      hh.last_success_at = now
    else
      health.fail(d.wh, {
        id = id, room = d.room, ev = d.ev, n = d.n, at = now, status = status, error = err ~= '' and err or nil,
      }, tonumber(ARGV[7]))
    end
  end
  if outcome == 'gone' and hraw then
    local h = cmsgpack.unpack(hraw)
    if not h.disabled_at then
      h.disabled_at = now
      h.disabled_reason = 'the receiver answered 410 Gone'
      redis.call('HSET', KEYS[1], d.wh, cmsgpack.pack(h))
    end
  end
end
health.save()
return cmsgpack.pack({ settled = true, outcome = outcome, at = retryAt })
