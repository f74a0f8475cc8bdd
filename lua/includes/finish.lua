--- @include "includes/roomKeys"
--- @include "includes/unreadCount"
--- @include "includes/idem"
-- Ends a room script: adds the caller's unread count, refreshes TTLs (every room key when the
-- touch interval has passed, otherwise only the keys this call wrote), stores the reply of a
-- mutation under its idempotency key, and returns the packed reply.
local function finish(R, res)
  if R.agent ~= '' then res.unread = R.unread or unreadCount(R, R.agent) end
  local all = false
  if R.touch then
    if R.now - R.touchedAt >= tonumber(R.touchEvery) then
      -- pcall: a full Redis (maxmemory, noeviction) refuses HSET, and a read must not fail for
      -- its bookkeeping; PEXPIRE adds no data, so the TTLs are refreshed all the same.
      redis.pcall('HSET', R.k.meta, 'touched', R.now)
      -- Every stored key of the room: all but the last, its channel (includes/roomKeys).
      for i = 1, ROOM_KEY_COUNT - 1 do redis.call('PEXPIRE', KEYS[i], R.ttl) end
      all = true
    end
  end
  if not all and not R.archived then
    for key in pairs(R.dirty) do redis.call('PEXPIRE', key, R.ttl) end
  end
  local packed = cmsgpack.pack(res)
  if R.idem ~= '' and R.mutated then
    redis.call('HSET', R.k.idem, R.idem, R.op .. '\n' .. idemStamp(R.agent, R.idemFrom) .. packed)
    redis.call('ZADD', R.k.idemt, R.now, R.idem)
    local old = redis.call('ZRANGEBYSCORE', R.k.idemt, '-inf', R.now - tonumber(R.idemTtl), 'LIMIT', 0, 50)
    if #old > 0 then
      redis.call('HDEL', R.k.idem, unpack(old))
      redis.call('ZREM', R.k.idemt, unpack(old))
    end
    if not R.archived then
      redis.call('PEXPIRE', R.k.idem, R.ttl)
      redis.call('PEXPIRE', R.k.idemt, R.ttl)
    end
  end
  return packed
end

-- finish() for reads that return raw records: replies {packed header, row, row, ...}; the store
-- decodes the header and hands the rows (raw msgpack records or text) to the caller.
local function finishRows(R, res, rows)
  local out = { finish(R, res) }
  for i = 1, #rows do out[i + 1] = rows[i] end
  return out
end
