--[[
  Makes a task depend on another. Refuses a dependency that would close a cycle.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      task id
  ARGV[8]      id of the task it depends on
  ARGV[9]      dependencies-per-task limit

  Returns {task, blocked_by = [id], added = bool}; not_found, invalid_request (self or cycle,
  with the cycle's path), limit_reached.
  Publishes {k = 'task', op = 'updated', id}.
  Effects  tasks
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('addDependency')
if not R then return early end
local id, depId, limit = ARGV[7], ARGV[8], tonumber(ARGV[9])
local task = loadTask(R, id)
if not task then return fail('not_found', 'task ' .. id .. ' does not exist', { field = 'task_id' }) end
if not loadTask(R, depId) then
  return fail('not_found', 'task ' .. depId .. ' does not exist', { field = 'depends_on' })
end
if id == depId then
  return fail('invalid_request', 'depends_on: a task cannot depend on itself', { field = 'depends_on' })
end
task.depends_on = task.depends_on or {}
for _, d in ipairs(task.depends_on) do
  if d == depId then return finish(R, { task = task, blocked_by = blockersOf(R, task), added = false }) end
end
if #task.depends_on >= limit then
  return fail('limit_reached', 'task ' .. id .. ' has ' .. limit .. ' dependencies; the limit is ' .. limit,
    { field = 'depends_on', limit = limit })
end

local path = cycleThrough(R, id, { depId })
if path then
  return fail('invalid_request', 'depends_on: ' .. depId .. ' already depends on ' .. id ..
    ' (' .. table.concat(path, ' -> ') .. '); this would make a cycle', { field = 'depends_on', cycle = path })
end

task.depends_on[#task.depends_on + 1] = depId
task.updated_at = R.now
if R.agent ~= '' then task.updated_by = R.agent end
saveTask(R, task)
addEdges(R, task, { depId })
notify(R, { k = 'task', op = 'updated', id = id })
return finish(R, { task = task, blocked_by = blockersOf(R, task), added = true })
