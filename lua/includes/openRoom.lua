--- @include "includes/roomKeys"
--- @include "includes/fail"
--- @include "includes/notify"
-- Common prelude of every room script. ARGV[1] agent id ('' = none), ARGV[2] idempotency key
-- ('' = none), ARGV[3] room TTL (ms), ARGV[4] touch interval (ms), ARGV[5] '1' when the call
-- counts as activity, ARGV[6] idempotency TTL (ms). Op arguments start at ARGV[7].
-- Returns R, or nil and a reply to return at once: not_found for a missing room, or the stored
-- result of an earlier call with the same idempotency key.
local function openRoom(op)
  local t = redis.call('TIME')
  local R = {
    k = roomKeys(), op = op, agent = ARGV[1], idem = ARGV[2],
    ttl = tonumber(ARGV[3]), touchEvery = tonumber(ARGV[4]), touch = ARGV[5] == '1',
    idemTtl = tonumber(ARGV[6]),
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000),
    dirty = {},
  }
  if redis.call('EXISTS', R.k.meta) == 0 then
    return nil, fail('not_found', 'room not found', { field = 'room_id' })
  end
  if R.idem ~= '' then
    local prev = redis.call('HGET', R.k.idem, R.idem)
    if prev then
      local sep = string.find(prev, '\n', 1, true)
      if string.sub(prev, 1, sep - 1) ~= op then
        return nil, fail('conflict', 'idempotency_key was already used for ' .. string.sub(prev, 1, sep - 1),
          { field = 'idempotency_key' })
      end
      return nil, string.sub(prev, sep + 1)
    end
  end
  return R
end

-- Marks a key written by this call: finish() gives it the room TTL.
local function dirty(R, key)
  R.dirty[key] = true
  R.mutated = true
end
