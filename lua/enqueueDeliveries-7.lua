--[[
  Turns events of one room into pending deliveries (one per active webhook that wants the event)
  and moves the room's fan-out position past them. A compare-and-set on the position: two nodes
  fanning out the same room never enqueue an event twice. A delivery is due at once.

  KEYS[1]  the team's webhooks hash
  KEYS[2]  the team's webhook health hash
  KEYS[3]  the team's deliveries hash (delivery id -> msgpack delivery)
  KEYS[4]  the team's due deliveries (sorted set: id -> due ms)
  KEYS[5]  the team's fan-out positions (hash: room id -> event id)
  KEYS[6]  the team's hinted rooms (sorted set: room id -> hint counter)
  KEYS[7]  the team's webhook meta hash (seq: delivery counter)
  ARGV[1]  team id
  ARGV[2]  room id
  ARGV[3]  the position the events were read after ('' = none): still the room's position, or stale
  ARGV[4]  the new position ('' = unchanged; '-' = forget the room, it no longer exists)
  ARGV[5]  the room's hint score as read ('' = keep the hint: there is more to read); the hint
           is removed only when nobody hinted the room again since
  ARGV[6]  events trimmed away before they were fanned out (added to the `lost` of each active
           webhook that may have wanted them: created no later than ARGV[8])
  ARGV[7]  most pending deliveries per webhook; past it an event is dropped for that webhook and
           counted in its `dropped`
  ARGV[8]  ms no trimmed event was created after (readOutbox's lost_before)
  ARGV[9..] event id, stored event record (msgpack), repeated, oldest first

  A delivery: {id, wh = webhook id, room, ev = event id, e = event record, n = attempts, at}.
  Its id is "dlv_" + a 12-digit team counter (ids sort in enqueue order, so deliveries due in the
  same ms are claimed in order) + 12 hex of SHA-1(team/webhook/room/event) (unique across teams).

  Returns {enqueued, dropped}, or {stale = true} when the position had moved (nothing written).
  Effects  deliveries
]]
--- @include "includes/nowMs"
--- @include "includes/webhookHealth"

local team, room = ARGV[1], ARGV[2]
if (redis.call('HGET', KEYS[5], room) or '') ~= ARGV[3] then return cmsgpack.pack({ stale = true }) end
local now = nowMs()
local hooks = {}
for _, raw in ipairs(redis.call('HVALS', KEYS[1])) do
  local h = cmsgpack.unpack(raw)
  if not h.disabled_at then
    -- It wants the events from its creation on, or from its re-enabling: none posted while disabled.
    h.since = h.enabled_at or h.created_at
    if h.events then
      h.wants = {}
      for _, t in ipairs(h.events) do h.wants[t] = true end
    end
    hooks[#hooks + 1] = h
  end
end
local health = healthCache(KEYS[2])
local maxPending = tonumber(ARGV[7])
local enqueued, dropped = 0, 0
for i = 9, #ARGV, 2 do
  local evId, rec = ARGV[i], cmsgpack.unpack(ARGV[i + 1])
  for _, h in ipairs(hooks) do
    if (rec.created_at or 0) >= h.since and (not h.wants or h.wants[rec.type]) then
      local hh = health.get(h.id)
      if hh.pending >= maxPending then
        hh.dropped = hh.dropped + 1
        dropped = dropped + 1
      else
        local seq = redis.call('HINCRBY', KEYS[7], 'seq', 1)
        local id = string.format('dlv_%012d', seq) ..
          string.sub(redis.sha1hex(team .. '/' .. h.id .. '/' .. room .. '/' .. evId), 1, 12)
        redis.call('HSET', KEYS[3], id, cmsgpack.pack({ id = id, wh = h.id, room = room, ev = evId, e = rec, n = 0,
          at = now }))
        redis.call('ZADD', KEYS[4], now, id)
        hh.pending = hh.pending + 1
        enqueued = enqueued + 1
      end
    end
  end
end
local lost, lostBefore = tonumber(ARGV[6]), tonumber(ARGV[8])
if lost > 0 then
  for _, h in ipairs(hooks) do
    -- A webhook created (or re-enabled) after every lost event wanted none of them.
    if h.since <= lostBefore then
      local hh = health.get(h.id)
      hh.lost = hh.lost + lost
    end
  end
end
health.save()
if ARGV[4] == '-' then
  redis.call('HDEL', KEYS[5], room)
  redis.call('ZREM', KEYS[6], room)
elseif ARGV[4] ~= '' then
  redis.call('HSET', KEYS[5], room, ARGV[4])
end
if ARGV[5] ~= '' and redis.call('ZSCORE', KEYS[6], room) == ARGV[5] then redis.call('ZREM', KEYS[6], room) end
return cmsgpack.pack({ enqueued = enqueued, dropped = dropped })
