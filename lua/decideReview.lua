--[[
  Approves or rejects a pending review. When the review names a reviewer only that agent decides,
  unless a person overrides it (ARGV[10]): the review then keeps the overruled reviewer in
  `overrode`. The requester never decides their own review. A task target waiting in_review moves to done on
  approval and back to in_progress on rejection (the assignee is kept); a task in any other
  status is left alone. Approving and rejecting are distinct operations for idempotency keys.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1], the agent, decides
  ARGV[7]      'approved' or 'rejected'
  ARGV[8]      review id
  ARGV[9]      decision note ('' = none)
  ARGV[10]     '1': a person decides in place of the named reviewer ('' = no override)

  Returns {review, task_status?} (task targets that still exist: the task's status after the call);
  not_found, conflict (not pending; details status), forbidden (not the reviewer, or the requester).
  Publishes {k = 'review', op = 'approved' | 'rejected', id, task?}.
  Effects  tasks, reviews
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local decision, id, note, override = ARGV[7], ARGV[8], ARGV[9], ARGV[10] == '1'
local R, early = openRoom(decision == 'approved' and 'approveReview' or 'rejectReview')
if not R then return early end
local raw = redis.call('HGET', R.k.reviews, id)
if not raw then
  return fail('not_found', 'review_id: review ' .. id .. ' does not exist', { field = 'review_id' })
end
local review = cmsgpack.unpack(raw)
if review.status ~= 'pending' then
  return fail('conflict', 'review_id: review ' .. id .. ' is already ' .. review.status .. ' by ' ..
    tostring(review.decided_by) .. '; only a pending review can be decided',
    { field = 'review_id', status = review.status, decided_by = review.decided_by })
end
local overrode
if review.reviewer and review.reviewer ~= R.agent and override then
  overrode = review.reviewer
elseif review.reviewer and review.reviewer ~= R.agent then
  return fail('forbidden', 'agent_id: review ' .. id .. ' names ' .. review.reviewer ..
    ' as reviewer; only ' .. review.reviewer .. ' may decide it', { field = 'agent_id', reviewer = review.reviewer })
end
if review.requested_by == R.agent then
  return fail('forbidden', 'agent_id: ' .. R.agent .. ' requested review ' .. id ..
    ' and may not decide it; another agent must', { field = 'agent_id', requested_by = review.requested_by })
end

review.status = decision
review.decided_by = R.agent
review.decided_at = R.now
if note ~= '' then review.decision_note = note end
if overrode then review.overrode = overrode end
redis.call('HSET', R.k.reviews, id, cmsgpack.pack(review))
dirty(R, R.k.reviews)

local task
if review.target.kind == 'task' then
  task = loadTask(R, review.target.id)
  if task and task.status == 'in_review' then
    task.status = decision == 'approved' and 'done' or 'in_progress'
    task.updated_at = R.now
    task.updated_by = R.agent
    saveTask(R, task)
  end
end
notify(R, { k = 'review', op = decision, id = id, task = task and task.id or nil })
return finish(R, { review = review, task_status = task and task.status or nil })
