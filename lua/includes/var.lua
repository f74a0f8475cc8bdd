-- Shared var records: the room's vars hash maps name -> msgpack {value, version, updated_by?,
-- updated_at}; the value is always a string (counters hold decimal strings).

local function loadVar(R, name)
  local raw = redis.call('HGET', R.k.vars, name)
  if not raw then return nil end
  return cmsgpack.unpack(raw)
end

-- Writes the var at the version after `version`; returns the record.
local function saveVar(R, name, value, version)
  local var = { value = value, version = version + 1, updated_by = R.agent ~= '' and R.agent or nil,
    updated_at = R.now }
  redis.call('HSET', R.k.vars, name, cmsgpack.pack(var))
  dirty(R, R.k.vars)
  return var
end

-- The limit_reached reply when a new var would exceed the vars-per-room limit, else nil.
local function varLimit(R, limit)
  local count = redis.call('HLEN', R.k.vars)
  if count < limit then return nil end
  return fail('limit_reached', 'vars: the room has ' .. count .. ' shared vars; the vars-per-room limit is ' .. limit ..
    '; reuse an existing var', { field = 'vars', limit = limit })
end
