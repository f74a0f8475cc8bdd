-- Redis time in ms (scripts that do not open a room, which reads TIME itself).
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
