--- @include "includes/board"
--- @include "includes/inSlices"
-- Task records (msgpack in the room's tasks hash; notes live in the notes hash), and the plan's
-- indexes (includes/board) that every change of a task keeps.

local function loadTask(R, id)
  local raw = redis.call('HGET', R.k.tasks, id)
  if not raw then return nil end
  return cmsgpack.unpack(raw)
end

-- Makes sure the plan's indexes exist before a script reads or changes them: a room from before
-- them (or one that lost them) has them built here, once, from its tasks. Tells R whether the
-- board already existed, so writes to it need no PEXPIRE (dirty()). Then the tasks hash existed
-- too: the board has a member for every task.
local function planIndexes(R)
  if R.indexed ~= nil then return end
  R.indexed = redis.call('EXISTS', R.k.board) == 1
  if R.indexed or redis.call('HLEN', R.k.tasks) == 0 then return end
  local flat = redis.call('HGETALL', R.k.tasks)
  local members, edges = {}, {}
  for i = 2, #flat, 2 do
    local t = cmsgpack.unpack(flat[i])
    members[#members + 1] = boardScore(t)
    members[#members + 1] = slotOf(t.id)
    for _, d in ipairs(t.depends_on or {}) do
      edges[#edges + 1] = 0
      edges[#edges + 1] = edgeOf(d, t.id)
    end
  end
  for _, pair in ipairs({ { R.k.board, members }, { R.k.deps, edges } }) do
    local key, list = pair[1], pair[2]
    inSlices('ZADD', key, list)
    if #list > 0 then dirty(R, key) end
  end
end

-- Writes a task and its place on the board.
local function saveTask(R, task)
  planIndexes(R)
  redis.call('HSET', R.k.tasks, task.id, cmsgpack.pack(task))
  redis.call('ZADD', R.k.board, boardScore(task), slotOf(task.id))
  dirty(R, R.k.tasks, R.indexed)
  dirty(R, R.k.board, R.indexed)
end

-- Records that `task` depends on each of `deps` (new entries of its depends_on).
local function addEdges(R, task, deps)
  if #deps == 0 then return end
  local args = {}
  for _, d in ipairs(deps) do
    args[#args + 1] = 0
    args[#args + 1] = edgeOf(d, task.id)
  end
  redis.call('ZADD', R.k.deps, unpack(args))
  dirty(R, R.k.deps)
end

-- The cycle that making `id` depend on each of `deps` would close, or nil: a depth-first search
-- from them through the stored depends_on, reading only the tasks reachable from them. The path
-- starts and ends with `id` ({id, dep, ..., id}); its second entry is the dependency given that
-- leads back to `id`. A dependency on `id` itself is the caller's to refuse first.
local function cycleThrough(R, id, deps)
  local parent, stack, seen = {}, {}, {}
  for _, d in ipairs(deps) do
    if not seen[d] then
      seen[d] = true
      stack[#stack + 1] = d
    end
  end
  while #stack > 0 do
    local cur = table.remove(stack)
    if cur == id then
      local path, node = { id }, id
      while parent[node] do
        node = parent[node]
        table.insert(path, 1, node)
      end
      table.insert(path, 1, id)
      return path
    end
    local t = loadTask(R, cur)
    for _, d in ipairs((t and t.depends_on) or {}) do
      if not seen[d] then
        seen[d] = true
        parent[d] = cur
        stack[#stack + 1] = d
      end
    end
  end
  return nil
end

local function isFinished(status)
  return status == 'done' or status == 'cancelled'
end

-- Ids of the task's dependencies that are not done or cancelled (a deleted dependency is gone,
-- so it blocks nothing): from the board, or from `all` (id -> decoded task) when given.
local function blockersOf(R, task, all)
  if not all then
    planIndexes(R)
    return openOf(R, task.depends_on or {})
  end
  local out = {}
  for _, dep in ipairs(task.depends_on or {}) do
    local d = all[dep]
    if d and not isFinished(d.status) then out[#out + 1] = dep end
  end
  return out
end

-- Todo tasks that wait for nothing and are not assigned to an agent other than `who` ('' = any
-- agent), decoded, best first (the board's order); the first `limit` when given. Only the todo
-- part of the board is read, and the dependencies' statuses come from the board too.
local function claimableTasks(R, who, limit)
  planIndexes(R)
  local picked = {}
  local todo = redis.call('ZCOUNT', R.k.board, '-inf', '(' .. BOARD_BAND)
  for first = 0, todo - 1, 1000 do
    local ids = {}
    local slots = redis.call('ZRANGE', R.k.board, first, math.min(first + 999, todo - 1))
    for i, slot in ipairs(slots) do ids[i] = idOfSlot(slot) end
    for _, raw in ipairs(redis.call('HMGET', R.k.tasks, unpack(ids))) do
      local t = cmsgpack.unpack(raw)
      if (t.assignee == nil or who == '' or t.assignee == who) and #blockersOf(R, t) == 0 then
        picked[#picked + 1] = t
        if limit and #picked >= limit then return picked end
      end
    end
  end
  return picked
end

-- How many tasks are not done or cancelled (todo, in progress, in review), from the board.
local function openTasks(R)
  planIndexes(R)
  return redis.call('ZCOUNT', R.k.board, '-inf', '(' .. (3 * BOARD_BAND))
end

-- Every task, decoded, as a map id -> task and a list in hash order.
local function allTasks(R)
  local flat = redis.call('HGETALL', R.k.tasks)
  local byId, list = {}, {}
  for i = 1, #flat, 2 do
    local t = cmsgpack.unpack(flat[i + 1])
    byId[t.id] = t
    list[#list + 1] = t
  end
  return byId, list
end

-- Sorts tasks by priority, then order, then creation (the number in the id).
local function sortTasks(list)
  table.sort(list, function(a, b)
    local pa, pb = PRIORITY_RANK[a.priority] or 2, PRIORITY_RANK[b.priority] or 2
    if pa ~= pb then return pa < pb end
    if a.order ~= b.order then return a.order < b.order end
    return tonumber(string.sub(a.id, 2)) < tonumber(string.sub(b.id, 2))
  end)
end

-- Raw rows [task, notes, task, notes, ...] for the given tasks, as reads return them.
local function taskRows(R, list)
  local rows = {}
  for _, t in ipairs(list) do
    rows[#rows + 1] = cmsgpack.pack(t)
    rows[#rows + 1] = redis.call('HGET', R.k.notes, t.id) or ''
  end
  return rows
end
