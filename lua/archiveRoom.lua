--[[
  Archives a room, or restores an archived one. An archived room is read-only: every room script
  that would change it is refused with room_archived (includes/openRoom, from its Effects line);
  reads, search and the snapshot work, and agents' read positions and presence still move. Its
  keys lose their TTL, so it is kept until it is restored or deleted; restoring gives them the
  room TTL again from now (the room counts as just active).

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
  ARGV[7]        'archive' or 'restore'
  ARGV[8]        who does it (recorded as archived_by)

  Returns {room = meta fields}; conflict (field state) when the room is already in that state.
  Publishes {k = 'room', op = 'archived' | 'restored'}.
  Effects  state
]]
--- @include "includes/openRoom"
--- @include "includes/finish"
--- @include "includes/roomRecord"

local R, early = openRoom('archiveRoom')
if not R then return early end
local archive = ARGV[7] == 'archive'
if archive == (R.archived == true) then
  return fail('conflict', 'the room is ' .. (archive and 'already archived' or 'not archived'), { field = 'state' })
end
local last = ROOM_KEY_COUNT + 8
if archive then
  redis.call('HSET', R.k.meta, 'archived_at', R.now, 'archived_by', ARGV[8])
  for i = 1, last do
    if i ~= ROOM_KEY_COUNT then redis.call('PERSIST', KEYS[i]) end
  end
else
  redis.call('HDEL', R.k.meta, 'archived_at', 'archived_by')
  redis.call('HSET', R.k.meta, 'touched', R.now)
  for i = 1, last do
    if i ~= ROOM_KEY_COUNT then redis.call('PEXPIRE', KEYS[i], R.ttl) end
  end
end
local op = archive and 'archived' or 'restored'
redis.call('SPUBLISH', R.k.channel, cmsgpack.pack({ k = 'room', op = op, at = R.now }))
local meta = roomRecord(R)
R.archived, R.touch, R.mutated = archive, false, true
return finish(R, { room = meta })
