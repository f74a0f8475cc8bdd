--[[
  Deletes a room: every key of it at once, its lock keys and the keys passed below included, so
  no write can land between two of them (a later call finds no room: not_found). Archived or not.
  The team's side (its room index, the room's invite keys, webhook positions) is another slot:
  lua/dropRoom-5.lua, run before this one.

  KEYS[room]     the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1]   the room's file reservations (store.keys.reservations)
  KEYS[room+2]   the search indexer's manifest of the room (store.keys.searchManifest)
  KEYS[room+3]   the vector indexer's manifest of the room (store.keys.vectors: manifest)
  KEYS[room+4]   the room's vectors (vec)
  KEYS[room+5]   their keep order (order)
  KEYS[room+6]   their write log (log)
  KEYS[room+7]   their removals (dels)
  KEYS[room+8]   their vector set (set)
  ARGV[1..6]     common room arguments (includes/openRoom)

  A lock's own key is named from the room's (the meta key's name less "meta", then "lock:<name>",
  as store.keys.lock builds it): same hash tag, same slot.

  Returns {deleted = {tasks, events, context, keys}}: what the room held, and how many keys went.
  Publishes {k = 'room', op = 'deleted'}.
  Effects  gone
]]
--- @include "includes/openRoom"

local R, early = openRoom('deleteRoom')
if not R then return early end
local held = {
  tasks = redis.call('HLEN', R.k.tasks),
  events = redis.call('XLEN', R.k.events),
  context = redis.call('HLEN', R.k.ctx),
  keys = 0,
}
local base = string.sub(R.k.meta, 1, #R.k.meta - 4)
for _, name in ipairs(redis.call('HKEYS', R.k.locks)) do
  held.keys = held.keys + redis.call('DEL', base .. 'lock:' .. name)
end
for i = 1, ROOM_KEY_COUNT + 8 do
  if i ~= ROOM_KEY_COUNT then held.keys = held.keys + redis.call('DEL', KEYS[i]) end
end
redis.call('SPUBLISH', R.k.channel, cmsgpack.pack({ k = 'room', op = 'deleted', at = R.now }))
return cmsgpack.pack({ deleted = held })
