--- @include "includes/inSlices"

-- Revoked key and invite records stay listed for the retention (REVOKED_KEY_RETENTION_S), and at
-- most REVOKED_KEPT_MAX of them per records hash, the newest: revocations are not limited in
-- number, so without the cap a mint-and-revoke loop would grow every later scan of the hash.
local REVOKED_KEPT_MAX = 100

-- Deletes from `hash` the revoked ones of `records` (decoded, the hash's values) that are past
-- `retention` (ms) at `now`, then the oldest past REVOKED_KEPT_MAX. Returns how many it deleted.
local function pruneRevoked(hash, records, now, retention)
  local revoked, gone = {}, {}
  for _, r in ipairs(records) do
    if r.revoked_at then
      if r.revoked_at < now - retention then gone[#gone + 1] = r.id else revoked[#revoked + 1] = r end
    end
  end
  if #revoked > REVOKED_KEPT_MAX then
    table.sort(revoked, function(a, b) return a.revoked_at < b.revoked_at end)
    for i = 1, #revoked - REVOKED_KEPT_MAX do gone[#gone + 1] = revoked[i].id end
  end
  inSlices('HDEL', hash, gone)
  return #gone
end
