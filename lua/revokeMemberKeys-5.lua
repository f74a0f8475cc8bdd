--[[
  Revokes every live credential a person minted (their created_by), when that person leaves the
  team (removed by the owner, or deleting their own account): team keys and room invite keys.
  The set is read and changed in this one script, so a key minted concurrently with a key of
  theirs (mintKey reads the minting key here too) is either revoked here or refused there. Each
  record stays, marked revoked_at, as revokeKey leaves it; the caller announces every returned
  hash on the revocation path (src/auth/keyring.ts: open streams and parked waits end) and
  records each revocation in the audit trail. A credential minted before created_by was recorded
  names nobody and is left alone. With ARGV[3] = 'admin' only their team keys of the admin scope
  go (the person's role was lowered to member, who may hold none).

  With a reason in ARGV[4], every active webhook of theirs is disabled in the same step, keeping
  the reason as disabled_reason: one they registered on the dashboard (created_via a person, them),
  one registered with a key they minted (created_via.person, or a key of this hash whose
  created_by is theirs, revoked or not), or one they re-enabled (enabled_via, likewise). A
  disabled webhook gets no new deliveries, and its pending ones are dropped when claimed
  (claimDeliveries). A webhook whose creator was never recorded is left alone.

  KEYS[1]  team hash          KEYS[2]  team keys hash
  KEYS[3]  room invites hash  KEYS[4]  secrets hash
  KEYS[5]  the team's webhooks hash
  ARGV[1]  user id of the person leaving
  ARGV[2]  retention of revoked records (ms)
  ARGV[3]  'admin': only team keys with the admin scope; '': every credential they minted
  ARGV[4]  why their webhooks are disabled (their disabled_reason); '': their webhooks stay

  Returns {keys = [record], invites = [record], hashes = [sha256 of each credential revoked],
  webhooks = [{id, url, disabled_reason}] (each webhook disabled; never a secret)}.
  Effects  keys, webhooks
]]
--- @include "includes/inSlices"
local who = ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local keep = tonumber(ARGV[2])
local adminOnly = ARGV[3] == 'admin'
local reason = ARGV[4]
local out = { keys = {}, invites = {}, hashes = {}, webhooks = {} }
-- Every team key they minted, live or revoked: a webhook registered with one is theirs.
local minted = {}
for _, kind in ipairs({ 'keys', 'invites' }) do
  local records = kind == 'keys' and KEYS[2] or KEYS[3]
  local expired = {}
  for _, raw in ipairs(redis.call('HVALS', records)) do
    local rec = cmsgpack.unpack(raw)
    if kind == 'keys' and rec.created_by == who then minted[rec.id] = true end
    local chosen = not adminOnly or (kind == 'keys' and rec.scope == 'admin')
    if not rec.revoked_at and rec.created_by == who and chosen then
      rec.revoked_at = now
      redis.call('HSET', records, rec.id, cmsgpack.pack(rec))
      redis.call('HDEL', KEYS[4], rec.hash)
      local list = out[kind]
      list[#list + 1] = rec
      out.hashes[#out.hashes + 1] = rec.hash
    elseif rec.revoked_at and rec.revoked_at < now - keep then
      expired[#expired + 1] = rec.id
    end
  end
  -- Revoked records are kept for the retention only, as revokeKey and mintKey do; revocations are
  -- not limited in number, so neither are the records that expire at once.
  inSlices('HDEL', records, expired)
end
if reason ~= '' then
  local function theirs(v)
    return type(v) == 'table' and ((v.kind == 'person' and v.id == who) or v.person == who
      or (v.kind == 'key' and minted[v.id] == true))
  end
  for _, raw in ipairs(redis.call('HVALS', KEYS[5])) do
    local h = cmsgpack.unpack(raw)
    if not h.disabled_at and (theirs(h.created_via) or theirs(h.enabled_via)) then
      h.disabled_at = now
      h.disabled_reason = reason
      redis.call('HSET', KEYS[5], h.id, cmsgpack.pack(h))
      out.webhooks[#out.webhooks + 1] = { id = h.id, url = h.url, disabled_reason = reason }
    end
  end
end
return cmsgpack.pack(out)
