--[[
  Counts for get_room_analytics: tasks by status, tasks finished per day, online agents, and
  events per day (kept in meta fields 'd:<day>', day = floor(ms / 86400000), by appendEvent).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      presence TTL (ms)
  ARGV[8]      how many days of daily counts (including today)

  Returns {status = {status = n}, done_by_day = {day = n}, events_by_day = {day = n},
  online = [agent], today = day, counts = {context, events, vars, reviews, events_total}}.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/boardPages"
--- @include "includes/finish"

local R, early = openRoom('roomAnalytics')
if not R then return early end
local ttl, days = tonumber(ARGV[7]), tonumber(ARGV[8])
local today = math.floor(R.now / 86400000)
local first = today - days + 1

-- Counted on the plan's indexes (includes/board), not by reading the tasks.
planIndexes(R)
local status = statusCounts(bandStarts(R))
local done = doneByDay(R, first, today)

local eventsByDay = {}
local fields = {}
for d = first, today do fields[#fields + 1] = 'd:' .. d end
local counts = redis.call('HMGET', R.k.meta, unpack(fields))
for i, n in ipairs(fields) do
  if counts[i] then eventsByDay[string.sub(n, 3)] = tonumber(counts[i]) end
end

local online = redis.call('ZRANGEBYSCORE', R.k.presence, R.now - ttl, '+inf')
local counts = {
  context = redis.call('HLEN', R.k.ctx), events = redis.call('XLEN', R.k.events),
  vars = redis.call('HLEN', R.k.vars), reviews = redis.call('HLEN', R.k.reviews),
  events_total = tonumber(redis.call('HGET', R.k.meta, 'eseq') or '0'),
}
return finish(R, {
  status = status, done_by_day = done, events_by_day = eventsByDay, online = online, today = today,
  counts = counts,
})
