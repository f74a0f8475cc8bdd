--- @include "includes/board"
-- Reading the board's pages and counts from the plan's indexes (includes/board): for the room
-- page (readSnapshot) and analytics, so the plan scripts do not define these on every call.

local BOARD_STATUSES = { 'todo', 'in_progress', 'in_review', 'done', 'cancelled' }
local DAY_MS = 86400000

-- A score or bound as Redis reads it (a Lua number would print as 1.7e+13 past 14 digits).
local function scoreText(x)
  return string.format('%.0f', x)
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
