--[[
  A page of the dashboard's feed, filtered, without consuming anything and without counting as
  room activity (touch = '0'): newest first from the latest event or from before an id, only the
  events of a type, of an agent, or (open) the questions that no retained event replies to.
  Always bounded: a page examines at most ARGV[12] entries. For open questions the scan starts at
  the newest event whatever the page (a reply is always newer than what it replies to, so every
  reply of a question is examined before it), and only questions before the boundary are picked.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      the boundary id: only events before it (exclusive); '' for the latest
  ARGV[8]      most events to return
  ARGV[9]      only events of this type; '' for all
  ARGV[10]     only events of this agent; '' for all
  ARGV[11]     '1': only questions no examined event replies to
  ARGV[12]     most entries to examine

  Returns {count, next?, exhausted} and rows [id, d, id, d, ...], oldest first. next: the boundary
  of the next (older) page when one may hold more (the oldest event returned, or the last examined
  when the scan stopped at ARGV[12] entries); exhausted: true when the scan stopped there before the
  feed's start. Open questions have no next page past the entries examined (their scan starts at
  the newest).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('readFeed')
if not R then return early end
local boundary, limit, wantType, wantAgent = ARGV[7], tonumber(ARGV[8]), ARGV[9], ARGV[10]
local open, cap = ARGV[11] == '1', tonumber(ARGV[12])
local filtered = wantType ~= '' or wantAgent ~= '' or open

-- Stream ids compare as (ms, seq); the boundary is exclusive.
local function splitId(id)
  local ms, seq = string.match(id, '^(%d+)%-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local bms, bseq
if boundary ~= '' then bms, bseq = splitId(boundary) end
local function beforeBoundary(id)
  if not bms then return true end
  local ms, seq = splitId(id)
  return ms < bms or (ms == bms and seq < bseq)
end

local pos = '+'
if boundary ~= '' and not open then pos = '(' .. boundary end
if boundary ~= '' and string.match(boundary, '^0+%-0+$') then pos = nil end

local picked, replied, examined, last = {}, {}, 0, nil
local full = false
local batch = filtered and 200 or (limit + 1)
while pos and not full and examined < cap do
  local want = math.min(batch, cap - examined)
  local got = redis.call('XREVRANGE', R.k.events, pos, '-', 'COUNT', want)
  for _, e in ipairs(got) do
    examined = examined + 1
    last = e[1]
    local d = e[2][2]
    local ev = filtered and cmsgpack.unpack(d) or nil
    if ev and ev.reply_to then replied[ev.reply_to] = true end
    if beforeBoundary(e[1]) then
      local ok = true
      if ev then
        if wantType ~= '' and ev.type ~= wantType then ok = false end
        if wantAgent ~= '' and ev.agent_id ~= wantAgent then ok = false end
        if open and (ev.type ~= 'question' or replied[e[1]]) then ok = false end
      end
      if ok then
        if #picked == limit then
          full = true
          break
        end
        picked[#picked + 1] = e
      end
    end
  end
  if #got < want then
    pos = nil
  elseif not full then
    pos = '(' .. last
  end
end

local res = { count = #picked, exhausted = pos ~= nil and not full and examined >= cap }
if full then
  res.next = picked[#picked][1]
elseif res.exhausted and not open then
  res.next = last
end
local rows = {}
for i = #picked, 1, -1 do
  rows[#rows + 1] = picked[i][1]
  rows[#rows + 1] = picked[i][2][2]
end
return finishRows(R, res, rows)
