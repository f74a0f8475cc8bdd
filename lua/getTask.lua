--[[
  Reads one task with its notes and the dependencies that still block it.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      task id

  Returns {task, notes?, blocked_by = [id]}; not_found.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('getTask')
if not R then return early end
local task = loadTask(R, ARGV[7])
if not task then return fail('not_found', 'task ' .. ARGV[7] .. ' does not exist', { field = 'task_id' }) end
local notes = redis.call('HGET', R.k.notes, task.id)
return finish(R, { task = task, notes = notes or nil, blocked_by = blockersOf(R, task) })
