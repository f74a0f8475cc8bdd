--[[
  Deletes a task and its notes, removes it from the depends_on of every other task, and removes
  its pending reviews (in this script, so no review outlives its task). Keeps the plan's indexes
  (includes/board).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      task id

  Returns {deleted = id, dependents = [id] (tasks that depended on it, oldest first), reviews_removed = [id]};
  not_found.
  Publishes {k = 'task', op = 'deleted', id}.
  Effects  tasks, reviews
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/reviewsOf"
--- @include "includes/finish"

local R, early = openRoom('deleteTask')
if not R then return early end
local id = ARGV[7]
local task = loadTask(R, id)
if not task then
  return fail('not_found', 'task ' .. id .. ' does not exist', { field = 'task_id' })
end
planIndexes(R)
redis.call('HDEL', R.k.tasks, id)
redis.call('HDEL', R.k.notes, id)
redis.call('ZREM', R.k.board, slotOf(id))
dirty(R, R.k.tasks)
for _, d in ipairs(task.depends_on or {}) do redis.call('ZREM', R.k.deps, edgeOf(d, id)) end
-- The tasks that depended on it lose it from their depends_on (found through deps, not by
-- reading every task).
local dependents = dependentsOf(R, id)
for _, did in ipairs(dependents) do
  local t = loadTask(R, did)
  local kept = {}
  for _, d in ipairs(t.depends_on) do
    if d ~= id then kept[#kept + 1] = d end
  end
  t.depends_on = kept
  saveTask(R, t)
end
if #dependents > 0 then redis.call('ZREMRANGEBYLEX', R.k.deps, dependentsRange(id)) end
notify(R, { k = 'task', op = 'deleted', id = id })
local removed = dropPendingReviews(R, 'task', id)
return finish(R, { deleted = id, dependents = dependents, reviews_removed = removed })
