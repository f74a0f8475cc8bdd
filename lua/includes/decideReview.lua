--- @include "includes/task"
-- Approves or rejects a pending review (decision = 'approved' | 'rejected'). When the review names
-- a reviewer only that agent decides; the requester never decides their own review. A task
-- target waiting in_review moves to done on approval and back to in_progress on rejection (the
-- assignee is kept); a task in any other status is left alone.
-- Returns the result table, or nil and an error reply.
local function decideReview(R, decision, id, note)
  local raw = redis.call('HGET', R.k.reviews, id)
  if not raw then
    return nil, fail('not_found', 'review_id: review ' .. id .. ' does not exist', { field = 'review_id' })
  end
  local review = cmsgpack.unpack(raw)
  if review.status ~= 'pending' then
    return nil, fail('conflict', 'review_id: review ' .. id .. ' is already ' .. review.status .. ' by ' ..
      tostring(review.decided_by) .. '; only a pending review can be decided',
      { field = 'review_id', status = review.status, decided_by = review.decided_by })
  end
  if review.reviewer and review.reviewer ~= R.agent then
    return nil, fail('forbidden', 'agent_id: review ' .. id .. ' names ' .. review.reviewer ..
      ' as reviewer; only ' .. review.reviewer .. ' may decide it', { field = 'agent_id', reviewer = review.reviewer })
  end
  if review.requested_by == R.agent then
    return nil, fail('forbidden', 'agent_id: ' .. R.agent .. ' requested review ' .. id ..
      ' and may not decide it; another agent must', { field = 'agent_id', requested_by = review.requested_by })
  end

  review.status = decision
  review.decided_by = R.agent
  review.decided_at = R.now
  if note ~= '' then review.decision_note = note end
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
  return { review = review, task_status = task and task.status or nil }
end
