--[[
  Adds a task to the plan with the next id (t1, t2, ...).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      msgpack {title, status, assignee?, depends_on, priority, order?}
  ARGV[8]      notes ('' for none)
  ARGV[9]      tasks-per-room limit
  ARGV[10]     '1' to add it in_progress even when blocked
  ARGV[11]     the credential that adds it, as JSON text kept as it is (created_via, and claimed_via
               when added in_progress), '' = none

  Returns {task, notes?}; limit_reached, not_found (a dependency), conflict (blocked claim).
  Publishes {k = 'task', op = 'added', id}.
  Effects  tasks
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('addTask')
if not R then return early end
local input = cmsgpack.unpack(ARGV[7])
local notes, limit, force = ARGV[8], tonumber(ARGV[9]), ARGV[10] == '1'
local via = ARGV[11] ~= '' and ARGV[11] or nil

if redis.call('HLEN', R.k.tasks) >= limit then
  return fail('limit_reached', 'the room has ' .. limit .. ' tasks; the tasks-per-room limit is ' .. limit,
    { field = 'tasks', limit = limit })
end
for _, dep in ipairs(input.depends_on) do
  if redis.call('HEXISTS', R.k.tasks, dep) == 0 then
    return fail('not_found', 'depends_on: task ' .. dep .. ' does not exist', { field = 'depends_on', id = dep })
  end
end

if input.status == 'in_progress' and not force then
  local blockers = blockersOf(R, input)
  if #blockers > 0 then
    return fail('conflict', 'task would be blocked by ' .. table.concat(blockers, ', ')
      .. '; add it as todo or pass force',
      { field = 'status', blocked_by = blockers })
  end
end

local n = redis.call('HINCRBY', R.k.meta, 'tseq', 1)
local task = {
  id = 't' .. n, title = input.title, status = input.status, assignee = input.assignee,
  depends_on = input.depends_on, priority = input.priority, order = input.order or n,
  created_at = R.now, updated_at = R.now, created_by = R.agent ~= '' and R.agent or nil,
  created_via = via, claimed_via = input.status == 'in_progress' and via or nil,
}
saveTask(R, task)
addEdges(R, task, task.depends_on)
if notes ~= '' then
  redis.call('HSET', R.k.notes, task.id, notes)
  dirty(R, R.k.notes)
end
dirty(R, R.k.meta)
notify(R, { k = 'task', op = 'added', id = task.id })
return finish(R, { task = task, notes = notes ~= '' and notes or nil })
