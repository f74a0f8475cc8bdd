--[[
  Lists a selection of tasks, sorted by priority, then order, then creation.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      'unblocked' (todo, every dependency done or cancelled, and not assigned to an agent
               other than ARGV[9], when given) or 'mine' (assigned to ARGV[9])
  ARGV[8]      most tasks to return
  ARGV[9]      agent id the selection is for
  ARGV[10]     'mine' only: '1' to include done and cancelled tasks

  Returns {total} (matches before the limit) and rows [task, notes, ...]. A task of 'mine' that
  waits for others carries blocked_by (its dependencies not done or cancelled) in its row.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('listTasks')
if not R then return early end
local mode, limit, who, includeDone = ARGV[7], tonumber(ARGV[8]), ARGV[9], ARGV[10] == '1'
local picked = {}
if mode == 'unblocked' then
  picked = claimableTasks(R, who)
else
  local byId, list = allTasks(R)
  for _, t in ipairs(list) do
    if t.assignee == who and (includeDone or not isFinished(t.status)) then picked[#picked + 1] = t end
  end
  sortTasks(picked)
  for i = 1, math.min(limit, #picked) do
    local b = blockersOf(R, picked[i], byId)
    if #b > 0 then picked[i].blocked_by = b end
  end
end
local total = #picked
while #picked > limit do table.remove(picked) end
return finishRows(R, { total = total }, taskRows(R, picked))
