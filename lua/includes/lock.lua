-- Lock records. A lock's own key (the script's KEYS[room+1]) holds msgpack {owner, token, acquired_at,
-- expires_at} with PX = TTL, so key expiry IS the lock's TTL; the room's locks hash mirrors the
-- record per name for listing. Index entries past their expires_at are dead and pruned lazily.
-- The lock key is never passed to dirty(): that would replace its TTL with the room's.

-- Drops every index entry whose lock has expired; returns how many entries remain.
local function pruneLocks(R)
  local flat = redis.call('HGETALL', R.k.locks)
  local live = 0
  for i = 1, #flat, 2 do
    if cmsgpack.unpack(flat[i + 1]).expires_at <= R.now then
      redis.call('HDEL', R.k.locks, flat[i])
      dirty(R, R.k.locks)
    else
      live = live + 1
    end
  end
  return live
end

-- Whole seconds left before the lock expires (at least 1 while it is live).
local function secondsLeft(R, lock)
  return math.ceil((lock.expires_at - R.now) / 1000)
end

-- The conflict reply for a lock held by another agent.
local function heldByOther(R, name, lock)
  local left = secondsLeft(R, lock)
  return fail('conflict', 'name: lock "' .. name .. '" is held by ' .. lock.owner .. ' for ' .. left ..
    ' more s; wait for its release or expiry, or work on something else',
    { field = 'name', holder = lock.owner, expires_at = lock.expires_at, expires_in_s = left })
end
