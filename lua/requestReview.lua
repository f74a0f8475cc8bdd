--[[
  Opens a review of a task or a context entry. The target must exist. A task target that is
  in_progress moves to in_review (its assignee is kept), so the board shows it awaits review.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1], the agent, is the requester
  ARGV[7]      msgpack {target = {kind = 'task', id} | {kind = 'context', type, key}, reviewer?, note?}
  ARGV[8]      reviews-per-room limit

  Returns {review, task_status?} (task targets: the task's status after the call);
  not_found (the target), limit_reached.
  Publishes {k = 'review', op = 'requested', id, task?}.
  Effects  tasks, reviews
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/context"
--- @include "includes/finish"

local R, early = openRoom('requestReview')
if not R then return early end
local input = cmsgpack.unpack(ARGV[7])
local limit = tonumber(ARGV[8])
local target = input.target

local count = redis.call('HLEN', R.k.reviews)
if count >= limit then
  return fail('limit_reached', 'reviews: the room has ' .. count .. ' reviews; the reviews-per-room limit is ' .. limit,
    { field = 'reviews', limit = limit })
end

local task
if target.kind == 'task' then
  task = loadTask(R, target.id)
  if not task then
    return fail('not_found', 'target.task_id: task ' .. target.id .. ' does not exist', { field = 'target.task_id' })
  end
elseif redis.call('HEXISTS', R.k.ctx, ctxField(target.type, target.key)) == 0 then
  return fail('not_found', 'target: context entry ' .. target.type .. '/' .. target.key .. ' does not exist',
    { field = 'target.key' })
end

local n = redis.call('HINCRBY', R.k.meta, 'rseq', 1)
dirty(R, R.k.meta)
local review = {
  id = 'r' .. n, target = target, requested_by = R.agent, reviewer = input.reviewer,
  status = 'pending', note = input.note, created_at = R.now,
}
redis.call('HSET', R.k.reviews, review.id, cmsgpack.pack(review))
dirty(R, R.k.reviews)

if task and task.status == 'in_progress' then
  task.status = 'in_review'
  task.updated_at = R.now
  task.updated_by = R.agent
  saveTask(R, task)
end
notify(R, { k = 'review', op = 'requested', id = review.id, task = task and task.id or nil })
return finish(R, { review = review, task_status = task and task.status or nil })
