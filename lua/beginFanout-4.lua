--[[
  Starts a webhook pass over a team: which rooms may have events to fan out, from where, and
  whether this pass also sweeps every room of the team (the backstop for lost hints).

  KEYS[1]  the team's webhooks hash
  KEYS[2]  the team's hinted rooms (sorted set: room id -> hint counter)
  KEYS[3]  the team's fan-out positions (hash: room id -> last event id fanned out)
  KEYS[4]  the team's webhook meta hash (swept = last sweep, ms)
  ARGV[1]  most hinted rooms to return
  ARGV[2]  sweep interval (ms): the pass that finds it elapsed claims the sweep

  Returns {webhooks = active webhooks, floor? = earliest start of the active webhooks (enabled_at
  when re-enabled, else created_at: events before it are wanted by none; nil without one), rooms =
  [{room, hint = score as read, pos = position or ''}], sweep? = true when this pass sweeps, now}.
  With no active webhook, hints and positions are dropped (a webhook registered or re-enabled
  later starts at its own start) and rooms is empty.
  Effects  deliveries
]]
--- @include "includes/nowMs"

local now = nowMs()
local floor, active = nil, 0
for _, raw in ipairs(redis.call('HVALS', KEYS[1])) do
  local h = cmsgpack.unpack(raw)
  if not h.disabled_at then
    active = active + 1
    local since = h.enabled_at or h.created_at
    if not floor or since < floor then floor = since end
  end
end
local out = { webhooks = active, now = now, rooms = {} }
if active == 0 then
  redis.call('DEL', KEYS[2], KEYS[3])
  return cmsgpack.pack(out)
end
out.floor = floor
local hinted = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
for i = 1, #hinted, 2 do
  out.rooms[#out.rooms + 1] = {
    room = hinted[i], hint = hinted[i + 1], pos = redis.call('HGET', KEYS[3], hinted[i]) or '',
  }
end
local swept = tonumber(redis.call('HGET', KEYS[4], 'swept') or '0')
if now - swept >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[4], 'swept', now)
  out.sweep = true
end
return cmsgpack.pack(out)
