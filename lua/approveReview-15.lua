--[[
  Approves a pending review (see includes/decideReview for the rules): the named reviewer or, when
  none is named, any agent but the requester decides. A task target in_review moves to done.

  KEYS[1..15]  the room's fixed keys
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1], the agent, decides
  ARGV[7]      review id
  ARGV[8]      decision note ('' = none)

  Returns {review, task_status?} (task targets that still exist: the task's status after the call);
  not_found, conflict (not pending; details status), forbidden (not the reviewer, or the requester).
  Publishes {k = 'review', op = 'approved', id, task?}.
]]
--- @include "includes/openRoom"
--- @include "includes/decideReview"
--- @include "includes/finish"

local R, early = openRoom('approveReview')
if not R then return early end
local res, err = decideReview(R, 'approved', ARGV[7], ARGV[8])
if not res then return err end
return finish(R, res)
