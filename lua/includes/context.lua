-- Context entries. Metadata lives in the ctx hash under "<type>/<key>" (msgpack {type, key,
-- version, size, created_at, created_by, created_via, updated_at, updated_by, updated_via, hist});
-- the body of every kept version, the current one included, lives in the ctxv hash under
-- "<type>/<key>#<version>" (msgpack {body, by, via, at}). `via` is the credential that wrote a
-- version (JSON text from the calling script's R.via, kept as it is). hist lists the kept versions
-- oldest first as {v, by, via, at, size}; kept
-- versions are always consecutive, ending with the current one. Types never contain "/", so a
-- field names exactly one entry.

local function ctxField(ctype, key)
  return ctype .. '/' .. key
end

local function loadEntry(R, field)
  local raw = redis.call('HGET', R.k.ctx, field)
  if not raw then return nil end
  return cmsgpack.unpack(raw)
end

local function missingEntry(ctype, key)
  return fail('not_found', 'key: context entry ' .. ctype .. '/' .. key
    .. ' does not exist; list_context shows what exists',
    { field = 'key', type = ctype, key = key })
end

-- The entry as results show it: the metadata without its history.
local function compactEntry(meta)
  return {
    type = meta.type, key = meta.key, version = meta.version, size = meta.size,
    created_at = meta.created_at, created_by = meta.created_by, created_via = meta.created_via,
    updated_at = meta.updated_at, updated_by = meta.updated_by, updated_via = meta.updated_via,
  }
end

-- nil when `expected` ('' = not given) matches the current version (0 = no entry), else a conflict reply.
local function checkExpected(expected, meta)
  if expected == '' then return nil end
  local want = tonumber(expected)
  local have = meta and meta.version or 0
  if want == have then return nil end
  local msg
  if want == 0 then
    msg = 'expected_version: 0 means the entry must not exist, but it is at version ' .. have
  else
    msg = 'expected_version: expected version ' .. want .. ' but the entry is at version ' .. have ..
      '; read it again, then decide'
  end
  return fail('conflict', msg, { field = 'expected_version', expected_version = want, version = have })
end

-- The stored record {body, by, at} of a kept version, raw; or nil and a not_found reply that
-- names the versions still kept. Version 0 is the empty text before the entry existed.
local function keptVersion(R, field, meta, v, argName)
  if v == 0 then return '' end
  local raw
  if v >= 1 and v <= meta.version then raw = redis.call('HGET', R.k.ctxv, field .. '#' .. v) end
  if raw then return raw end
  local kept = {}
  for _, h in ipairs(meta.hist or {}) do kept[#kept + 1] = h.v end
  local range = (#kept > 0) and (kept[1] .. ' to ' .. kept[#kept]) or 'none'
  return nil, fail('not_found', argName .. ': ' .. field .. ' has no version ' .. v .. ' kept; kept versions are '
    .. range,
    { field = argName, version = v, kept = kept })
end

-- The body of the current version ('' if its record is missing).
local function currentBody(R, field, meta)
  local raw = redis.call('HGET', R.k.ctxv, field .. '#' .. meta.version)
  if not raw then return '' end
  return cmsgpack.unpack(raw).body
end

-- Stores `body` as the next version of the entry (a new entry at version 1 when meta is nil),
-- drops the versions that fall out of the last `keep`, and announces it. Returns the metadata.
local function commitVersion(R, ctype, key, meta, body, keep, op)
  local field = ctxField(ctype, key)
  local by = R.agent ~= '' and R.agent or nil
  local via = R.via ~= nil and R.via ~= '' and R.via or nil
  if not meta then
    meta = { type = ctype, key = key, version = 0, created_at = R.now, created_by = by, created_via = via, hist = {} }
  end
  local v = meta.version + 1
  meta.version, meta.size, meta.updated_at, meta.updated_by, meta.updated_via = v, #body, R.now, by, via
  local hist = meta.hist or {}
  hist[#hist + 1] = { v = v, by = by, via = via, at = R.now, size = #body }
  while #hist > keep do
    local gone = table.remove(hist, 1)
    redis.call('HDEL', R.k.ctxv, field .. '#' .. gone.v)
  end
  meta.hist = hist
  redis.call('HSET', R.k.ctx, field, cmsgpack.pack(meta))
  redis.call('HSET', R.k.ctxv, field .. '#' .. v, cmsgpack.pack({ body = body, by = by, via = via, at = R.now }))
  dirty(R, R.k.ctx)
  dirty(R, R.k.ctxv)
  notify(R, { k = 'context', op = op, type = ctype, key = key, version = v })
  return meta
end
