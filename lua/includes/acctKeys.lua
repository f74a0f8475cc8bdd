-- The accounts directory's fixed keys, in the order of ACCOUNT_KEYS in src/store/keys.ts (a test
-- compares them).
local function acctKeys()
  return {
    users = KEYS[1], emails = KEYS[2], idents = KEYS[3], members = KEYS[4], tokens = KEYS[5],
    tokexp = KEYS[6], invites = KEYS[7], waitlist = KEYS[8], sessions = KEYS[9], sessexp = KEYS[10],
    usess = KEYS[11], tinvites = KEYS[12], invexp = KEYS[13],
  }
end
