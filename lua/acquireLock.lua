--[[
  Takes a named lock for the caller, or extends it when the caller already holds it. The lock's
  own key expires with the lock (PX = TTL): an abandoned lock frees itself. A new acquisition
  takes the room's next fencing token (HINCRBY meta fence), so a late writer holding an older
  token can be detected; an extension keeps the token and acquired_at and sets a new expiry.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1] the lock's own key (store.keys.lock)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1], the agent, is the owner
  ARGV[7]      lock name
  ARGV[8]      TTL (ms)
  ARGV[9]      locks-per-room limit (live locks)

  Returns {lock = {owner, token, acquired_at, expires_at}, extended, now};
  conflict (held by another agent; details holder, expires_at, expires_in_s), limit_reached.
  Publishes {k = 'lock', op = 'acquired' | 'extended', name}.
  Effects  locks
]]
--- @include "includes/openRoom"
--- @include "includes/lock"
--- @include "includes/finish"

local R, early = openRoom('acquireLock')
if not R then return early end
local lockKey, name, ttl, limit = KEYS[ROOM_KEY_COUNT + 1], ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])

local raw = redis.call('GET', lockKey)
local lock, extended
if raw then
  lock = cmsgpack.unpack(raw)
  if lock.owner ~= R.agent then return heldByOther(R, name, lock) end
  lock.expires_at = R.now + ttl
  extended = true
else
  -- The key is the truth: absent means free, whatever a stale index entry says.
  local held = pruneLocks(R) - redis.call('HEXISTS', R.k.locks, name)
  if held >= limit then
    return fail('limit_reached', 'locks: the room holds ' .. held .. ' live locks; the locks-per-room limit is ' ..
      limit .. '; release a lock first', { field = 'locks', limit = limit })
  end
  lock = {
    owner = R.agent, token = redis.call('HINCRBY', R.k.meta, 'fence', 1),
    acquired_at = R.now, expires_at = R.now + ttl,
  }
  dirty(R, R.k.meta)
  extended = false
end

local packed = cmsgpack.pack(lock)
redis.call('SET', lockKey, packed, 'PX', ttl)
redis.call('HSET', R.k.locks, name, packed)
dirty(R, R.k.locks)
notify(R, { k = 'lock', op = extended and 'extended' or 'acquired', name = name })
return finish(R, { lock = lock, extended = extended, now = R.now })
