-- Task records (msgpack in the room's tasks hash; notes live in the notes hash).

local PRIORITY_RANK = { urgent = 0, high = 1, normal = 2, low = 3 }

local function loadTask(R, id)
  local raw = redis.call('HGET', R.k.tasks, id)
  if not raw then return nil end
  return cmsgpack.unpack(raw)
end

local function saveTask(R, task)
  redis.call('HSET', R.k.tasks, task.id, cmsgpack.pack(task))
  dirty(R, R.k.tasks)
end

local function isFinished(status)
  return status == 'done' or status == 'cancelled'
end

-- Ids of the task's dependencies that are not done or cancelled (a deleted dependency is gone,
-- so it blocks nothing). `all`, when given, maps id -> decoded task and saves the lookups.
local function blockersOf(R, task, all)
  local out = {}
  for _, dep in ipairs(task.depends_on or {}) do
    local d
    if all then d = all[dep] else d = loadTask(R, dep) end
    if d and not isFinished(d.status) then out[#out + 1] = dep end
  end
  return out
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
