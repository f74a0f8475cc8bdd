--- @include "includes/inSlices"
-- Removes the pending reviews of a target that is being deleted (a task: kind 'task', id; a
-- context entry: kind 'context', type, key), so no reviewer is left asked to review nothing.
-- Decided reviews stay as the record of what was decided. Returns the ids removed, sorted.
local function dropPendingReviews(R, kind, a, b)
  local flat = redis.call('HGETALL', R.k.reviews)
  local ids = {}
  for i = 1, #flat, 2 do
    local rv = cmsgpack.unpack(flat[i + 1])
    local t = rv.target
    if rv.status == 'pending' and t.kind == kind
        and ((kind == 'task' and t.id == a) or (kind == 'context' and t.type == a and t.key == b)) then
      ids[#ids + 1] = flat[i]
    end
  end
  if #ids > 0 then
    -- A target may have as many pending reviews as the room may hold (LIMIT_REVIEWS_PER_ROOM).
    inSlices('HDEL', R.k.reviews, ids)
    dirty(R, R.k.reviews, true)
    table.sort(ids, function(x, y) return tonumber(string.sub(x, 2)) < tonumber(string.sub(y, 2)) end)
  end
  return ids
end
