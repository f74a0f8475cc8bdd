--- @include "includes/roomKeys"
--- @include "includes/fail"
--- @include "includes/notify"
--- @include "includes/idem"
-- Common prelude of every room script. ARGV[1] agent id ('' = none), ARGV[2] idempotency key
-- ('' = none), ARGV[3] room TTL (ms), ARGV[4] touch interval (ms), ARGV[5] '1' when the call
-- counts as activity, ARGV[6] idempotency TTL (ms). Op arguments start at ARGV[7].
-- Returns R, or nil and a reply to return at once: not_found for a missing room, room_archived
-- for a write to an archived room (REFUSED_WHEN_ARCHIVED, from the loader: src/store/effects.ts),
-- or the stored result of an earlier call with the same idempotency key (or a conflict: includes/idem).
-- An archived room's keys have no TTL (lua/archiveRoom.lua): R.archived keeps finish() from giving
-- them one.
-- `idemFrom`: the first ARGV the idempotency binding digests (7 when nil; includes/idem).
local function openRoom(op, idemFrom)
  local t = redis.call('TIME')
  -- ttl, touchEvery and idemTtl stay the strings they came as: ttl only goes back to Redis
  -- (PEXPIRE), the other two are converted where used. In Redis' Lua a tonumber costs ~2k
  -- instructions and a number passed to redis.call ~5k (it is printed with sprintf):
  -- bench/script-cost --callgrind.
  local R = {
    k = roomKeys(), op = op, agent = ARGV[1], idem = ARGV[2],
    ttl = ARGV[3], touchEvery = ARGV[4], touch = ARGV[5] == '1',
    idemTtl = ARGV[6], idemFrom = idemFrom,
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000),
    dirty = {},
  }
  -- One read tells that the room exists (every room's meta has created_at) and when its keys'
  -- TTLs were last refreshed (finish() needs it).
  local m = redis.call('HMGET', R.k.meta, 'created_at', 'touched', 'archived_at')
  if not m[1] then
    return nil, fail('not_found', 'room not found', { field = 'room_id' })
  end
  if m[3] then
    if REFUSED_WHEN_ARCHIVED then
      return nil, fail('room_archived', 'the room is archived: it is read-only', { archived_at = tonumber(m[3]) })
    end
    R.archived = true
    R.touch = false
  end
  R.touchedAt = tonumber(m[2] or '0')
  -- meta existed before this call, so it has its TTL: writes to it need no PEXPIRE (dirty()).
  R.existing = R.k.meta
  if R.idem ~= '' then
    local prev = redis.call('HGET', R.k.idem, R.idem)
    if prev then return nil, idemReplay(op, R.agent, R.idem, prev, idemFrom) end
  end
  return R
end

-- Marks a key written by this call: finish() gives it the room TTL. Pass `existed` = true only
-- when the key is known to have existed before this write and nothing in this call deleted it:
-- every room key gets its TTL when it is created and a write keeps it, so such a key needs no
-- PEXPIRE (one Redis call less per key; BENCHMARKS.md, bench/script-cost).
local function dirty(R, key, existed)
  if not existed and key ~= R.existing then R.dirty[key] = true end
  R.mutated = true
end
