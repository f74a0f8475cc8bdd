-- The plan's indexes (docs/data-model.md, "The plan's indexes"), so that no read needs every task
-- decoded to count, order or page them. Kept by every script that writes a task
-- (includes/task.lua: saveTask, addEdges, dropTask; createRoom), read by the board
-- (readSnapshot), analytics and the scripts that need a task's dependents.
--   board  sorted set, one member per task: its number padded to 10 digits, so that members of
--          one score sort by creation. Score: the status's band (BOARD_BAND x 0..4, in
--          BOARD_STATUSES order) plus, for todo, in_progress and in_review, priority rank x
--          RANK_STEP + order (read upward: priority, order, creation, as read_plan sorts), and
--          for done and cancelled, updated_at in ms (read downward: most recently changed first,
--          then the newest). Scores stay below 2^47, exact in a double.
--   deps   sorted set, all scores 0: "<dependency>:<dependent>" for every depends_on entry, both
--          padded, so a task's dependents are one lexical range, in creation order.

local BOARD_STATUSES = { 'todo', 'in_progress', 'in_review', 'done', 'cancelled' }
local BOARD_BAND_OF = { todo = 0, in_progress = 1, in_review = 2, done = 3, cancelled = 4 }
local BOARD_BAND = 17592186044416 -- 2^44: ms timestamps stay below it until the year 2527
local RANK_STEP = 1073741824 -- 2^30: above every order (at most 1,000,000,000)
local PRIORITY_RANK = { urgent = 0, high = 1, normal = 2, low = 3 }
local DAY_MS = 86400000

-- A score or bound as Redis reads it (a Lua number would print as 1.7e+13 past 14 digits).
local function scoreText(x)
  return string.format('%.0f', x)
end

local function slotOf(id)
  return string.format('%010d', tonumber(string.sub(id, 2)))
end

local function idOfSlot(slot)
  return 't' .. tonumber(slot)
end

local function boardScore(task)
  local band = BOARD_BAND_OF[task.status]
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

-- Members below each band: at[b] for b = 0..5 (at[0] = 0, at[5] = all), so band b holds the
-- ranks at[b] .. at[b + 1] - 1.
local function bandStarts(R)
  local at = { [0] = 0 }
  for b = 1, 4 do at[b] = redis.call('ZCOUNT', R.k.board, '-inf', '(' .. scoreText(b * BOARD_BAND)) end
  at[5] = redis.call('ZCARD', R.k.board)
  return at
end

-- Tasks by status, counting only statuses that have some.
local function statusCounts(at)
  local out = {}
  for b = 0, 4 do
    if at[b + 1] > at[b] then out[BOARD_STATUSES[b + 1]] = at[b + 1] - at[b] end
  end
  return out
end

-- Tasks done per day (days since the epoch, UTC) from `first` to `last`, days with none left out.
local function doneByDay(R, first, last)
  local out = {}
  for d = first, last do
    local lo = 3 * BOARD_BAND + d * DAY_MS
    local n = redis.call('ZCOUNT', R.k.board, scoreText(lo), '(' .. scoreText(lo + DAY_MS))
    if n > 0 then out[tostring(d)] = n end
  end
  return out
end

-- One page of every column, as the board shows it: `size` cards a column from `from[b + 1]`
-- (rounded down to a page; past the end: the last page). Returns {status = {from, total}}, the
-- cards' ids, column after column, each column in its order, and each card's band.
local function boardColumns(R, at, size, from)
  local columns, ids, bands = {}, {}, {}
  for b = 0, 4 do
    local total = at[b + 1] - at[b]
    local first = math.floor(math.min(from[b + 1], math.max(0, total - 1)) / size) * size
    columns[BOARD_STATUSES[b + 1]] = { from = first, total = total }
    if total > 0 then
      local n = math.min(size, total - first)
      local slots
      if b < 3 then
        slots = redis.call('ZRANGE', R.k.board, at[b] + first, at[b] + first + n - 1)
      else
        local top = at[5] - at[b + 1]
        slots = redis.call('ZREVRANGE', R.k.board, top + first, top + first + n - 1)
      end
      for _, s in ipairs(slots) do
        ids[#ids + 1] = idOfSlot(s)
        bands[#ids] = b
      end
    end
  end
  return columns, ids, bands
end
