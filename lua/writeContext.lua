--[[
  Creates a context entry (version 1) or replaces its body with a new version. Writing the body the
  entry already has is a no-op: no new version, no notice, changed = false.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      type
  ARGV[8]      key
  ARGV[9]      body (size already checked against the body limit)
  ARGV[10]     expected version ('' = any; '0' = the entry must not exist yet)
  ARGV[11]     context-entries-per-room limit
  ARGV[12]     versions to keep (current one included)
  ARGV[13]     the credential that writes, as JSON text kept with the version (`via`), '' = none

  Returns {entry (metadata without hist), changed, created}; conflict (expected version, with
  details {expected_version, version}), limit_reached.
  Publishes {k = 'context', op = 'written', type, key, version} when a version is made.
  Effects  context
]]
--- @include "includes/openRoom"
--- @include "includes/context"
--- @include "includes/finish"

local R, early = openRoom('writeContext')
if not R then return early end
local ctype, key, body, expected = ARGV[7], ARGV[8], ARGV[9], ARGV[10]
local limit, keep = tonumber(ARGV[11]), tonumber(ARGV[12])
R.via = ARGV[13]
local field = ctxField(ctype, key)
local meta = loadEntry(R, field)

local refused = checkExpected(expected, meta)
if refused then return refused end
if not meta then
  local count = redis.call('HLEN', R.k.ctx)
  if count >= limit then
    return fail('limit_reached', 'context: the room has ' .. count
      .. ' context entries; the context-entries-per-room limit is ' .. limit
      .. '; delete an entry or update an existing one', { field = 'context', limit = limit })
  end
elseif currentBody(R, field, meta) == body then
  return finish(R, { entry = compactEntry(meta), changed = false, created = false })
end

local created = meta == nil
meta = commitVersion(R, ctype, key, meta, body, keep, 'written')
return finish(R, { entry = compactEntry(meta), changed = true, created = created })
