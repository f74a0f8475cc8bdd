--[[
  Leases calls of a team's rate window and of one of its credentials' (includes/rateWindow) to a
  node, which spends them locally (src/auth/ratelimit.ts): the calls granted here are counted now,
  whether the node spends them or not, and nothing unspent comes back. A call needs one of each.
  Both windows are under the team's hash tag, so one script counts both on Cluster too.

  KEYS[1]  the team's rate window (hash: bucket number -> calls counted in it)
  KEYS[2]  the credential's rate window (the same kind of hash)
  ARGV[1]  period (ms)
  ARGV[2]  the team's limit (calls per period)
  ARGV[3]  team calls wanted (0: read its window only)
  ARGV[4]  the credential's limit; 0: it has none of its own (KEYS[2] is not touched)
  ARGV[5]  credential calls wanted (0: read its window only)
  ARGV[6]  team calls the node holds already: with none held and none granted, no credential
           calls are granted either (they could not be spent; they would count for nothing)

  Returns {team = {granted, remaining, reset_ms, retry_ms}, cred? = the same for the credential
  (absent without a limit of its own)}: granted calls of each window (up to the wanted), the
  allowance left after them, until the full allowance is back, and until one more call fits
  (0 unless fewer than wanted were granted, or none were wanted and the window is full).
  Effects  rate
]]
--- @include "includes/nowMs"
--- @include "includes/rateWindow"
local now = nowMs()
local period = tonumber(ARGV[1])
local tg, tr, treset, tretry = rateWindow(KEYS[1], tonumber(ARGV[2]), period, tonumber(ARGV[3]), now)
local out = { team = { granted = tg, remaining = tr, reset_ms = treset, retry_ms = tretry } }
local credLimit = tonumber(ARGV[4])
if credLimit > 0 then
  local want = tonumber(ARGV[5])
  if tg + tonumber(ARGV[6]) == 0 then want = 0 end
  local cg, cr, creset, cretry = rateWindow(KEYS[2], credLimit, period, want, now)
  out.cred = { granted = cg, remaining = cr, reset_ms = creset, retry_ms = cretry }
end
return cmsgpack.pack(out)
