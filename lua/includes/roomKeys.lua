-- The room's fixed keys, in the order of ROOM_KEYS in src/store/keys.ts (a test compares them):
-- KEYS[1..ROOM_KEY_COUNT], the stored keys first and the channel last. A script's own keys
-- follow them: what its header calls KEYS[room+1] is the key at ROOM_KEY_COUNT + 1.
local ROOM_KEY_COUNT = 17
local function roomKeys()
  return {
    meta = KEYS[1], tasks = KEYS[2], notes = KEYS[3], ctx = KEYS[4], ctxv = KEYS[5],
    events = KEYS[6], evdel = KEYS[7], cursors = KEYS[8], presence = KEYS[9], locks = KEYS[10],
    vars = KEYS[11], reviews = KEYS[12], idem = KEYS[13], idemt = KEYS[14], board = KEYS[15],
    deps = KEYS[16], channel = KEYS[17],
  }
end
