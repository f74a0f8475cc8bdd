--[[
  Sends a failed delivery again: one of the webhook's recent failures becomes a pending delivery
  of the same id (receivers that deduplicate on it never saw it succeed), due at once, with a
  fresh schedule of attempts. It leaves the recent failures; the `failed` count, a tally of what
  happened, keeps it.

  Called twice: first without the event record, to check the request and learn which event to
  read (from the room's stream: lua/readEvent.lua, another slot); then with it, checking all
  again, since anything may have changed in between.

  KEYS[1]  the team's webhooks hash
  KEYS[2]  the team's webhook health hash
  KEYS[3]  the team's deliveries hash
  KEYS[4]  the team's due deliveries
  ARGV[1]  webhook id
  ARGV[2]  delivery id
  ARGV[3]  most pending deliveries per webhook (WEBHOOK_PENDING_MAX)
  ARGV[4]  the stored event record (msgpack), or '' for the first call

  Returns {room, ev} (first call) or {due = when it is due (ms)} (second); not_found (no such
  webhook, or the delivery is not among its recent failures: replayed already, or pushed out by
  newer ones), conflict (the webhook is disabled), limit_reached (WEBHOOK_PENDING_MAX pending).
  Effects  deliveries
]]
--- @include "includes/fail"
--- @include "includes/nowMs"
--- @include "includes/webhookHealth"
--- @include "includes/webhookOf"

local wh, id = ARGV[1], ARGV[2]
local hook, missing = webhookOf(KEYS[1], wh)
if not hook then return missing end
if hook.disabled_at then
  return fail('conflict', 'webhookId: the webhook is disabled (' .. (hook.disabled_reason or 'disabled') ..
    '): register the URL again to deliver to it', { field = 'webhookId' })
end
local health = healthCache(KEYS[2])
local hh = health.get(wh)
local at = nil
for i, f in ipairs(hh.recent) do
  if f.id == id then at = i break end
end
if not at then
  return fail('not_found', 'deliveryId: ' .. id .. ' is not among the recent failures of webhook ' .. wh ..
    ' (replayed already, or older than the ' .. #hh.recent .. ' kept)', { field = 'deliveryId' })
end
local f = hh.recent[at]
if ARGV[4] == '' then return cmsgpack.pack({ room = f.room, ev = f.ev }) end
local max = tonumber(ARGV[3])
if hh.pending >= max then
  return fail('limit_reached', 'webhook ' .. wh .. ' has ' .. hh.pending .. ' deliveries pending; the limit is '
    .. max .. ' (WEBHOOK_PENDING_MAX): replay once they are sent', { field = 'deliveryId', limit = max })
end
local now = nowMs()
redis.call('HSET', KEYS[3], id, cmsgpack.pack({ id = id, wh = wh, room = f.room, ev = f.ev,
  e = cmsgpack.unpack(ARGV[4]), n = 0, at = now }))
redis.call('ZADD', KEYS[4], now, id)
hh.pending = hh.pending + 1
table.remove(hh.recent, at)
health.save()
return cmsgpack.pack({ due = now })
