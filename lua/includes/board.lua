-- The plan's indexes (docs/data-model.md, "The plan's indexes"), so that no read needs every task
-- decoded to count, order or page them. Kept by every script that writes a task
-- (includes/task.lua: saveTask, addEdges; deleteTask; createRoom), read by the board
-- (readSnapshot, with includes/boardPages), analytics and the scripts that need a task's
-- dependents or blockers.
--   board  sorted set, one member per task: its number padded to 10 digits, so that members of
--          one score sort by creation. Score: the status's band (BOARD_BAND x 0..4: todo,
--          in_progress, in_review, done, cancelled) plus, for the first three, priority rank x
--          RANK_STEP + order (read upward: priority, order, creation, as read_plan sorts), and
--          for done and cancelled, updated_at in ms (read downward: most recently changed first,
--          then the newest). Scores stay below 2^47, exact in a double.
--   deps   sorted set, all scores 0: "<dependency>:<dependent>" for every depends_on entry, both
--          padded, so a task's dependents are one lexical range, in creation order.

local BOARD_BAND = 17592186044416 -- 2^44: ms timestamps stay below it until the year 2527
local RANK_STEP = 1073741824 -- 2^30: above every order (at most 1,000,000,000)
local PRIORITY_RANK = { urgent = 0, high = 1, normal = 2, low = 3 }

-- A status's band: its place in BOARD_STATUSES (includes/boardPages), 0-based. An if-chain, not
-- a table: every plan script defines these helpers on each call, and a table costs more.
local function boardBand(status)
  if status == 'todo' then return 0 elseif status == 'in_progress' then return 1
  elseif status == 'in_review' then return 2 elseif status == 'done' then return 3 end
  return 4
end

local function slotOf(id)
  return string.format('%010d', tonumber(string.sub(id, 2)))
end

local function idOfSlot(slot)
  return 't' .. tonumber(slot)
end

local function boardScore(task)
  local band = boardBand(task.status)
  if band >= 3 then return band * BOARD_BAND + task.updated_at end
  return band * BOARD_BAND + (PRIORITY_RANK[task.priority] or 2) * RANK_STEP + task.order
end

local function edgeOf(dep, id)
  return slotOf(dep) .. ':' .. slotOf(id)
end

-- The lexical range of a task's dependents in deps.
local function dependentsRange(id)
  local slot = slotOf(id)
  return '[' .. slot .. ':', '(' .. slot .. ';'
end

-- Ids of the tasks that depend on `id`, in creation order; at most `limit` when given.
local function dependentsOf(R, id, limit)
  local lo, hi = dependentsRange(id)
  local edges
  if limit then
    edges = redis.call('ZRANGEBYLEX', R.k.deps, lo, hi, 'LIMIT', 0, limit)
  else
    edges = redis.call('ZRANGEBYLEX', R.k.deps, lo, hi)
  end
  local out = {}
  for i, e in ipairs(edges) do out[i] = idOfSlot(string.sub(e, 12)) end
  return out
end

-- Which of `ids` (in their order) are tasks not done or cancelled: a task to do waits for them.
-- A task deleted since is no longer there and blocks nothing.
local function openOf(R, ids)
  if #ids == 0 then return {} end
  local slots = {}
  for i, id in ipairs(ids) do slots[i] = slotOf(id) end
  local scores = redis.call('ZMSCORE', R.k.board, unpack(slots))
  local out = {}
  for i, s in ipairs(scores) do
    if s and tonumber(s) < 3 * BOARD_BAND then out[#out + 1] = ids[i] end
  end
  return out
end
