--[[
  Changes a task: title, notes, status, assignee, priority, order. Claiming is part of it: setting
  status in_progress (assignee defaults to the caller) fails with conflict when another agent
  holds the task in progress, when the task is done or cancelled already, or when a dependency is
  not done, unless force is given (forcing a claim of a finished task reopens it). A repeat
  claim by the holder succeeds. Finishing a task (done/cancelled) reports the tasks it unblocked.
  Changing anything but priority and order of a task another agent holds in progress is a
  conflict too unless force is given; with force the change goes through, and the service posts a
  `task_overridden` event by the caller (data {task_id, holder, changed}) so the holder learns it,
  and the notice and reply name the holder (`overrode`).
  Without a task id it claims the best claimable task for the caller (claim_next_task): the first
  that listTasks 'unblocked' lists, chosen and claimed in this one script, so two callers never
  get the same task.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      task id, or '' for the best claimable task (the patch then claims it)
  ARGV[8]      msgpack patch {title?, notes?, status?, assignee? ('' clears), priority?, order?}
  ARGV[9]      '1' to override the claim checks
  ARGV[10]     events kept per room (for the task_overridden event)
  ARGV[11]     the credential that changes it, as JSON text kept as it is (updated_via; claimed_via
               when this change claims it; via of the task_overridden event), '' = none

  Returns {task?, notes?, changed = [field], unblocked = [id], overrode? = holder, open?}; not_found,
  conflict. task is absent only when ARGV[7] is '' and nothing is claimable; open (how many tasks
  are not done or cancelled) is given only when ARGV[7] is ''.
  Publishes {k = 'task', op = 'updated', id, status, overrode?}, or with an override
  {k = 'task', op = 'updated', id, status, overrode, event_id, type = 'task_overridden', event}.
  Effects  tasks, events, reads
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('updateTask')
if not R then return early end
local pickNext = ARGV[7] == ''
local task
if pickNext then
  task = claimableTasks(R, R.agent, 1)[1]
  if not task then return finish(R, { changed = {}, unblocked = {}, open = openTasks(R) }) end
else
  task = loadTask(R, ARGV[7])
  if not task then return fail('not_found', 'task ' .. ARGV[7] .. ' does not exist', { field = 'task_id' }) end
end
local patch = cmsgpack.unpack(ARGV[8])
local force = ARGV[9] == '1'
R.via = ARGV[11]
-- Held by another agent: in progress and assigned to someone other than the caller.
local held = task.status == 'in_progress' and task.assignee and task.assignee ~= R.agent and task.assignee or nil

local newAssignee = task.assignee
if patch.assignee ~= nil then
  if patch.assignee == '' then newAssignee = nil else newAssignee = patch.assignee end
end
local newStatus = patch.status or task.status
if patch.status == 'in_progress' and patch.assignee == nil and R.agent ~= '' then newAssignee = R.agent end

if not force and task.status == 'in_progress' and task.assignee and newStatus == 'in_progress'
    and newAssignee ~= task.assignee then
  return fail('conflict', 'task ' .. task.id .. ' is in progress, held by ' .. task.assignee ..
    '; pick another task or pass force', { field = 'assignee', holder = task.assignee })
end
if not force and patch.status == 'in_progress' and (task.status == 'done' or task.status == 'cancelled') then
  return fail('conflict', 'task ' .. task.id .. ' is ' .. task.status .. ' already' ..
    (task.assignee and (' (' .. task.assignee .. ')') or '') ..
    '; pick another task, or pass force to reopen it', { field = 'status', status = task.status })
end
if not force and newStatus == 'in_progress' and task.status ~= 'in_progress' then
  local blockers = blockersOf(R, task)
  if #blockers > 0 then
    return fail('conflict', 'task ' .. task.id .. ' is blocked by ' .. table.concat(blockers, ', ') ..
      '; finish those first or pass force', { field = 'status', blocked_by = blockers })
  end
end

-- A claim: the task goes in progress, or in progress to another assignee.
local claims = newStatus == 'in_progress' and (task.status ~= 'in_progress' or newAssignee ~= task.assignee)
local changed = {}
local function set(field, value)
  if task[field] ~= value then
    task[field] = value
    changed[#changed + 1] = field
  end
end
if patch.title ~= nil then set('title', patch.title) end
set('status', newStatus)
set('assignee', newAssignee)
if patch.priority ~= nil then set('priority', patch.priority) end
if patch.order ~= nil then set('order', patch.order) end
local notes = redis.call('HGET', R.k.notes, task.id) or ''
local notesChanged = patch.notes ~= nil and patch.notes ~= notes
if notesChanged then
  notes = patch.notes
  changed[#changed + 1] = 'notes'
end

-- Another agent's claimed task: only its holder changes it (priority and order are the
-- planner's), unless force overrides, which the holder is told of.
local overriding = {}
if held then
  for _, f in ipairs(changed) do
    if f ~= 'priority' and f ~= 'order' then overriding[#overriding + 1] = f end
  end
end
if #overriding > 0 and not force then
  return fail('conflict', 'task ' .. task.id .. ' is in progress, held by ' .. held .. '; changing its ' ..
    table.concat(overriding, ', ') .. ' needs force (the holder is told), or ask ' .. held,
    { field = 'task_id', holder = held, fields = overriding })
end
if notesChanged then
  if notes == '' then redis.call('HDEL', R.k.notes, task.id) else redis.call('HSET', R.k.notes, task.id, notes) end
  dirty(R, R.k.notes)
end

local unblocked = {}
if #changed > 0 then
  task.updated_at = R.now
  if R.agent ~= '' then task.updated_by = R.agent end
  if R.via ~= '' then
    task.updated_via = R.via
    if claims then task.claimed_via = R.via end
  end
  saveTask(R, task)
  if isFinished(task.status) then
    -- Its dependents (includes/board: in creation order) that now wait for nothing.
    for _, did in ipairs(dependentsOf(R, task.id)) do
      local t = loadTask(R, did)
      if t.status == 'todo' and #blockersOf(R, t) == 0 then unblocked[#unblocked + 1] = did end
    end
  end
  if #overriding > 0 then
    local ev = {
      type = 'task_overridden', agent_id = R.agent,
      text = R.agent .. ' changed ' .. task.id .. ' (' .. table.concat(overriding, ', ') .. ') while ' .. held
        .. ' held it',
      data = cjson.encode({ task_id = task.id, holder = held, changed = overriding }),
    }
    local id = appendEvent(R, ev, tonumber(ARGV[10]))
    notify(R, { k = 'task', op = 'updated', id = task.id, status = task.status, overrode = held,
      event_id = id, type = ev.type, event = ev })
  else
    notify(R, { k = 'task', op = 'updated', id = task.id, status = task.status })
  end
end
return finish(R, { task = task, notes = notes ~= '' and notes or nil, changed = changed, unblocked = unblocked,
  overrode = #overriding > 0 and held or nil, open = pickNext and openTasks(R) or nil })
