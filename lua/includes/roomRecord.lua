-- The room's record: the fields of its meta hash less the bookkeeping kept there (d:<day> event
-- counts and o:<agent> own-event lists), as the room's readers are given it.
local function roomRecord(R)
  local flat = redis.call('HGETALL', R.k.meta)
  local meta = {}
  for i = 1, #flat, 2 do
    local tag = string.sub(flat[i], 1, 2)
    if tag ~= 'd:' and tag ~= 'o:' then meta[flat[i]] = flat[i + 1] end
  end
  return meta
end
