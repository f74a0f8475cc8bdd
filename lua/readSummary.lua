--[[
  get_my_summary: what an agent needs at the start of a turn, in one call. Consumes unread events
  like get_unread_events (advances the cursor), and reads the caller's open tasks, the pending
  reviews that name it as reviewer, and how many tasks are ready to claim.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the agent (required)
  ARGV[7]      most events to consume
  ARGV[8]      most of my tasks to return
  ARGV[9]      presence TTL (ms)

  Returns {events = [event], remaining, cursor_reset?, last_event_ms?, my_tasks = [task (with
  blocked_by when it waits for others)], my_tasks_total, reviews_for_me = [review], unblocked,
  online}. Events and tasks travel decoded in the reply so
  that a retry with the same idempotency key replays exactly what the first call consumed.
  Publishes {k = 'event', op = 'read', agent, id} when the cursor moved.
  Effects  reads
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('readSummary')
if not R then return early end
local eventLimit, taskLimit, presenceTtl = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])

local events, info = consumeEvents(R, R.agent, eventLimit)

local byId, list = allTasks(R)
local mine, unblocked = {}, 0
for _, t in ipairs(list) do
  if t.assignee == R.agent and not isFinished(t.status) then mine[#mine + 1] = t end
  if t.status == 'todo' and (t.assignee == nil or t.assignee == R.agent) and #blockersOf(R, t, byId) == 0 then
    unblocked = unblocked + 1
  end
end
sortTasks(mine)
local mineTotal = #mine
while #mine > taskLimit do table.remove(mine) end
for _, t in ipairs(mine) do
  local b = blockersOf(R, t, byId)
  if #b > 0 then t.blocked_by = b end
end

local reviews = {}
for _, raw in ipairs(redis.call('HVALS', R.k.reviews)) do
  local rv = cmsgpack.unpack(raw)
  if rv.status == 'pending' and rv.reviewer == R.agent then reviews[#reviews + 1] = rv end
end

local res = {
  events = events, remaining = info.remaining, cursor_reset = info.cursor_reset, last_event_ms = info.last_event_ms,
  my_tasks = mine, my_tasks_total = mineTotal, reviews_for_me = reviews, unblocked = unblocked,
  online = redis.call('ZCOUNT', R.k.presence, R.now - presenceTtl, '+inf'),
}
if info.moved then
  notify(R, { k = 'event', op = 'read', agent = R.agent, id = redis.call('HGET', R.k.cursors, R.agent) })
end
return finish(R, res)
