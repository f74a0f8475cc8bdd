--[[
  Releases a lock held by the caller. Releasing a free lock (expired, released already, never
  taken) is not an error: it answers released = false with the reason, so a retry is safe. When
  a token is given it must be the current one: a holder whose lock expired and who took it again
  cannot release the new acquisition with the old token.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1] the lock's own key (store.keys.lock)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      lock name
  ARGV[8]      fencing token the caller holds ('' = any)
  ARGV[9]      '1': a person (the dashboard, never an agent's tool) releases it in place of its
               holder; the token must then be given ('' or absent: only the holder may)

  Returns {released = true, lock} or {released = false, reason};
  conflict (held by another agent, or a stale token; details holder or token).
  Publishes {k = 'lock', op = 'released', name} when it released.
  Effects  locks
]]
--- @include "includes/openRoom"
--- @include "includes/lock"
--- @include "includes/finish"

local R, early = openRoom('releaseLock')
if not R then return early end
local lockKey, name, token, override = KEYS[ROOM_KEY_COUNT + 1], ARGV[7], ARGV[8], ARGV[9] == '1'
if override and token == '' then
  return fail('invalid_request', 'token: releasing a lock in place of its holder needs the token it was taken with',
    { field = 'token' })
end

local raw = redis.call('GET', lockKey)
if not raw then
  if redis.call('HDEL', R.k.locks, name) == 1 then dirty(R, R.k.locks) end
  return finish(R, { released = false,
    reason = 'lock "' .. name .. '" is not held: it expired, was released already or was never acquired' })
end
local lock = cmsgpack.unpack(raw)
if lock.owner ~= R.agent and not override then return heldByOther(R, name, lock) end
if token ~= '' and tonumber(token) ~= lock.token then
  return fail('conflict', 'token: ' .. token .. ' is stale; lock "' .. name .. '" was taken again with token ' ..
    lock.token, { field = 'token', token = lock.token })
end

redis.call('DEL', lockKey)
redis.call('HDEL', R.k.locks, name)
dirty(R, R.k.locks)
notify(R, { k = 'lock', op = 'released', name = name })
return finish(R, { released = true, lock = lock })
