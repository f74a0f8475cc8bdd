-- The room sequence number carried by an event id "<ms>-<seq>".
local function seqOf(id)
  return tonumber(string.match(id, '%-(%d+)$'))
end
