-- Runs `cmd key <values>` over the whole of `list`, 1,000 values a call, and returns the replies'
-- elements joined in order (an HMGET's missing fields stay false). Lua's unpack() of more than
-- about 8,000 values fails ("too many results to unpack"), so a list whose length no limit keeps
-- well below that (reviews, up to LIMIT_REVIEWS_PER_ROOM; names a caller sends) is never spread
-- at once. The slice is even, so a list of pairs (score, member) is never split inside a pair.
local function inSlices(cmd, key, list)
  local out = {}
  for i = 1, #list, 1000 do
    local reply = redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list)))
    if type(reply) == 'table' then
      for j = 1, #reply do out[#out + 1] = reply[j] end
    end
  end
  return out
end
