--[[
  Deletes a task and its notes, removes it from the depends_on of every other task, and removes
  its pending reviews (in this script, so no review outlives its task).

  KEYS[1..17]  the room's fixed keys
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      task id

  Returns {deleted = id, dependents = [id] (tasks that depended on it), reviews_removed = [id]};
  not_found.
  Publishes {k = 'task', op = 'deleted', id}.
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/reviewsOf"
--- @include "includes/finish"

local R, early = openRoom('deleteTask')
if not R then return early end
local id = ARGV[7]
if redis.call('HDEL', R.k.tasks, id) == 0 then
  return fail('not_found', 'task ' .. id .. ' does not exist', { field = 'task_id' })
end
redis.call('HDEL', R.k.notes, id)
dirty(R, R.k.tasks)
local _, list = allTasks(R)
local dependents = {}
for _, t in ipairs(list) do
  local kept, found = {}, false
  for _, d in ipairs(t.depends_on or {}) do
    if d == id then found = true else kept[#kept + 1] = d end
  end
  if found then
    t.depends_on = kept
    saveTask(R, t)
    dependents[#dependents + 1] = t.id
  end
end
notify(R, { k = 'task', op = 'deleted', id = id })
local removed = dropPendingReviews(R, 'task', id)
return finish(R, { deleted = id, dependents = dependents, reviews_removed = removed })
