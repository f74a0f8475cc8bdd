-- File reservations (docs/agents.md "Reservations"). The reservations hash (KEYS[room+1] of the
-- scripts that use it, store.keys.reservations) maps "<agent>\n<pattern>" to msgpack {agent,
-- pattern, exclusive, token, reason?, acquired_at, expires_at}. Entries past expires_at are dead:
-- never listed, pruned by the scripts that write. meta.rver counts the changes a reader can see
-- (an entry added, changed or released; pruning a dead one is not one): reserve_files decides
-- overlap outside Lua and writes only when rver is still the one it read.
-- The hash's TTL is the room's or the longest reservation's, whichever is longer.

-- The field of an agent's reservation of a pattern.
local function resvField(agent, pattern)
  return agent .. '\n' .. pattern
end

-- Drops dead entries. Returns the live ones as a field -> record table, and how many there are.
local function liveReservations(R, key)
  local flat = redis.call('HGETALL', key)
  local live, n = {}, 0
  for i = 1, #flat, 2 do
    local rec = cmsgpack.unpack(flat[i + 1])
    if rec.expires_at <= R.now then
      redis.call('HDEL', key, flat[i])
    else
      live[flat[i]] = rec
      n = n + 1
    end
  end
  return live, n
end

-- Records a visible change: bumps meta.rver and keeps the hash at least as long as `longest` ms
-- (or the room's TTL). Returns the new rver.
local function reservationsChanged(R, key, longest)
  R.mutated = true
  local ttl = math.max(tonumber(R.ttl), longest or 0)
  if redis.call('EXISTS', key) == 1 then redis.call('PEXPIRE', key, ttl) end
  return redis.call('HINCRBY', R.k.meta, 'rver', 1)
end

-- Releases every reservation of `agent`; returns the patterns released.
local function releaseAllOf(R, key, agent)
  local live = liveReservations(R, key)
  local released = {}
  for field, rec in pairs(live) do
    if rec.agent == agent then
      redis.call('HDEL', key, field)
      released[#released + 1] = rec.pattern
    end
  end
  return released
end
