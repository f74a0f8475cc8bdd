--[[
  Sets what a task depends on: its depends_on becomes exactly the given ids (duplicates dropped,
  first occurrence kept), dependencies added and removed in this one script. Refuses the whole
  set, changing nothing, when an id is not a task of the room, is the task itself, or would close
  a cycle (a task given already depends, directly or through others, on this one), or when the set
  is over the limit. A set equal to the current one changes nothing and publishes nothing.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      task id
  ARGV[8]      msgpack array of the task ids it is to depend on (may be empty)
  ARGV[9]      dependencies-per-task limit
  ARGV[10]     the credential that changes it, as JSON text kept as it is (updated_via), '' = none

  Returns {task, notes?, blocked_by = [id], added = [id], removed = [id]}; not_found (the task,
  or a dependency: details.id), invalid_request (self: details.id; cycle: details.id and
  details.cycle, the path), limit_reached.
  Publishes {k = 'task', op = 'updated', id, status} when the set changed.
  Effects  tasks
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('setDependencies')
if not R then return early end
local id, limit = ARGV[7], tonumber(ARGV[9])
local task = loadTask(R, id)
if not task then return fail('not_found', 'task ' .. id .. ' does not exist', { field = 'task_id' }) end

local wanted, given = {}, {}
for _, d in ipairs(cmsgpack.unpack(ARGV[8])) do
  if not given[d] then
    given[d] = true
    wanted[#wanted + 1] = d
  end
end
for _, d in ipairs(wanted) do
  if redis.call('HEXISTS', R.k.tasks, d) == 0 then
    return fail('not_found', 'depends_on: task ' .. d .. ' does not exist', { field = 'depends_on', id = d })
  end
end
if given[id] then
  return fail('invalid_request', 'depends_on: task ' .. id .. ' cannot depend on itself',
    { field = 'depends_on', id = id })
end
if #wanted > limit then
  return fail('limit_reached', 'depends_on: ' .. #wanted .. ' dependencies given; the limit is ' .. limit,
    { field = 'depends_on', limit = limit })
end

local path = cycleThrough(R, id, wanted)
if path then
  return fail('invalid_request', 'depends_on: task ' .. path[2] .. ' already depends on ' .. id .. ' (' ..
    table.concat(path, ' -> ') .. '); this would make a cycle', { field = 'depends_on', id = path[2], cycle = path })
end

local had = {}
for _, d in ipairs(task.depends_on or {}) do had[d] = true end
local added, removed = {}, {}
for _, d in ipairs(wanted) do
  if not had[d] then added[#added + 1] = d end
end
for _, d in ipairs(task.depends_on or {}) do
  if not given[d] then removed[#removed + 1] = d end
end
local notes = redis.call('HGET', R.k.notes, id) or ''
if #added == 0 and #removed == 0 then
  return finish(R, { task = task, notes = notes ~= '' and notes or nil, blocked_by = blockersOf(R, task),
    added = added, removed = removed })
end

task.depends_on = wanted
task.updated_at = R.now
if R.agent ~= '' then task.updated_by = R.agent end
if ARGV[10] ~= '' then task.updated_via = ARGV[10] end
saveTask(R, task)
if #removed > 0 then
  for _, d in ipairs(removed) do redis.call('ZREM', R.k.deps, edgeOf(d, id)) end
  dirty(R, R.k.deps)
end
addEdges(R, task, added)
notify(R, { k = 'task', op = 'updated', id = id, status = task.status })
return finish(R, { task = task, notes = notes ~= '' and notes or nil, blocked_by = blockersOf(R, task),
  added = added, removed = removed })
