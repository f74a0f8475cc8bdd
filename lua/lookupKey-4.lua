--[[
  Resolves a presented key's hash to what it may reach. One round trip per cache miss.

  KEYS[1]  secrets hash       KEYS[2]  team keys hash
  KEYS[3]  invites hash       KEYS[4]  team hash
  ARGV[1]  sha256 of the presented key

  Returns {kind = 'team', id, scope, access, agent_id, created_by, label} or {kind = 'room', id,
  room_id, scope, access, agent_id, created_by, label}, or {} when the key is unknown or revoked (or
  its team is gone). scope, access, agent_id and created_by are what the record says of its reach,
  where it says it (src/auth/keyring.ts decides for records without); label names it in records.
  Effects  none
]]
local ref = redis.call('HGET', KEYS[1], ARGV[1])
if not ref or redis.call('EXISTS', KEYS[4]) == 0 then return cmsgpack.pack({ none = true }) end
local kind, id = string.sub(ref, 1, 1), string.sub(ref, 3)
local raw = redis.call('HGET', kind == 'k' and KEYS[2] or KEYS[3], id)
if not raw then return cmsgpack.pack({ none = true }) end
local rec = cmsgpack.unpack(raw)
if rec.revoked_at or rec.hash ~= ARGV[1] then return cmsgpack.pack({ none = true }) end
local out = { kind = kind == 'k' and 'team' or 'room', id = id, scope = rec.scope, access = rec.access,
  agent_id = rec.agent_id, created_by = rec.created_by, label = rec.label }
if kind == 'i' then out.room_id = rec.room_id end
return cmsgpack.pack(out)
