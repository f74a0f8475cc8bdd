--[[
  What in a room needs a person (the dashboard's inbox and the block at the top of the room page),
  in one bounded read that does not count as room activity when the caller passes touch = '0':
  questions and blockers no event replies to, among the latest events; pending reviews that wait
  for a person (no reviewer named, a person named, or an agent named that is offline), among the
  latest requested; tasks in progress whose assignee is offline; live locks whose holder is
  offline. Offline: not seen within the presence TTL (or never seen). Questions and blockers that
  a person posted are left out: they wait for agents.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      presence TTL (ms)
  ARGV[8]      how many of the latest events are looked at
  ARGV[9]      how many of the latest requested reviews are looked at
  ARGV[10]     how many tasks in progress are looked at (in the board's order)
  ARGV[11]     most items returned of each kind (and online agents listed)
  ARGV[12]     a span (ms; '0': none): the author and time of each event looked at that was posted
               within it, up to now, are returned too (the room page's activity strips)

  Returns {sections = {events, reviews, tasks, locks}, totals = {events, reviews, tasks, locks},
  seen = {agent = ms}, online = {agent, ...}, posts?, now} and rows in section order: events
  (id, raw) pairs, newest first; reviews (raw), newest first; tasks (raw), in the board's order;
  locks (name, raw) pairs. totals counts every item found within what was looked at (rows hold at
  most ARGV[11] of each); seen holds the last-seen time of each offline agent the rows name that
  was ever seen; online lists the agents seen within the TTL, most recent first (whom a task can
  be given to). With a span, posts = {agent, ms, agent, ms, ...}: one pair an event looked at
  that was posted within it, newest first.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('readNeeds')
if not R then return early end
local ttl, eventCount, reviewCount, taskCount, most =
  tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local since = R.now - ttl
local span = tonumber(ARGV[12])
local postsFrom = span > 0 and R.now - span or nil

local seen, lastSeen = {}, {}
-- Whether an agent is offline: not seen since the TTL. Remembers the time of those ever seen.
local function offline(agent)
  local ms = lastSeen[agent]
  if ms == nil then
    ms = tonumber(redis.call('ZSCORE', R.k.presence, agent) or '-1')
    lastSeen[agent] = ms
  end
  if ms >= since then return false end
  if ms >= 0 then seen[agent] = ms end
  return true
end
local function byPerson(agent)
  return string.sub(agent or '', 1, 6) == 'human:'
end

local rows, sections, totals = {}, {}, {}

-- Events newest first: a reply is met before the event it answers.
local latest = redis.call('XREVRANGE', R.k.events, '+', '-', 'COUNT', eventCount)
local replied, n = {}, 0
local posts = {}
for _, entry in ipairs(latest) do
  local ev = cmsgpack.unpack(entry[2][2])
  if postsFrom then
    local ms = tonumber(string.match(entry[1], '^(%d+)'))
    if ms >= postsFrom then
      posts[#posts + 1] = ev.agent_id
      posts[#posts + 1] = ms
    end
  end
  if ev.reply_to then replied[ev.reply_to] = true end
  if (ev.type == 'question' or ev.type == 'blocker') and not replied[entry[1]] and not byPerson(ev.agent_id) then
    n = n + 1
    if n <= most then
      rows[#rows + 1] = entry[1]
      rows[#rows + 1] = entry[2][2]
    end
  end
end
sections.events, totals.events = math.min(n, most), n

-- Of the records `ids` of the hash `key`, those `wanted` accepts (given the decoded record), in
-- the order of `ids`: the first `most` are added to the rows as they are stored. Returns how many
-- were added and how many were accepted.
local function pick(key, ids, wanted)
  local added, accepted = 0, 0
  if #ids == 0 then return 0, 0 end
  for _, raw in ipairs(redis.call('HMGET', key, unpack(ids))) do
    if raw and wanted(cmsgpack.unpack(raw)) then
      accepted = accepted + 1
      if accepted <= most then
        rows[#rows + 1] = raw
        added = added + 1
      end
    end
  end
  return added, accepted
end

-- Reviews: ids count up (r1, r2, ...), so the latest requested are the highest numbers.
local top = tonumber(redis.call('HGET', R.k.meta, 'rseq') or '0')
local reviewIds = {}
for i = top, math.max(1, top - reviewCount + 1), -1 do reviewIds[#reviewIds + 1] = 'r' .. i end
sections.reviews, totals.reviews = pick(R.k.reviews, reviewIds, function(rv)
  return rv.status == 'pending' and (rv.reviewer == nil or byPerson(rv.reviewer) or offline(rv.reviewer))
end)

-- Tasks in progress: the board's second band (includes/board), first by priority and order.
planIndexes(R)
local lo = string.format('%.0f', BOARD_BAND)
local hi = '(' .. string.format('%.0f', 2 * BOARD_BAND)
local slots, taskIds = redis.call('ZRANGEBYSCORE', R.k.board, lo, hi, 'LIMIT', 0, taskCount), {}
for i, s in ipairs(slots) do taskIds[i] = idOfSlot(s) end
sections.tasks, totals.tasks = pick(R.k.tasks, taskIds, function(t)
  return t.assignee and t.assignee ~= '' and not byPerson(t.assignee) and offline(t.assignee)
end)

-- Live locks (at most the room's lock limit) held by an agent offline.
local locks = redis.call('HGETALL', R.k.locks)
local kept
n, kept = 0, 0
for i = 1, #locks, 2 do
  local lock = cmsgpack.unpack(locks[i + 1])
  if lock.expires_at > R.now and not byPerson(lock.owner) and offline(lock.owner) then
    n = n + 1
    if n <= most then
      rows[#rows + 1] = locks[i]
      rows[#rows + 1] = locks[i + 1]
      kept = kept + 1
    end
  end
end
sections.locks, totals.locks = kept, n

local online = redis.call('ZREVRANGEBYSCORE', R.k.presence, '+inf', since, 'LIMIT', 0, most)
local res = { sections = sections, totals = totals, seen = seen, online = online, now = R.now }
if postsFrom then res.posts = posts end
return finishRows(R, res, rows)
