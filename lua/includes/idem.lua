--- @include "includes/fail"
-- Idempotency keys are bound to who sent them and with what: a key's stored reply is
-- `<op>\n=<agent>\n<sha1 of ARGV[7..]>\n<packed reply>`. A repeat by the same agent of the same
-- operation with the same arguments replays the reply; any other use of the key is a conflict
-- that names it, so a second, different call is never silently dropped. (Replies stored before
-- the binding, `<op>\n<packed>`, replay as they did: a packed map never starts with '='.)

-- The binding of a call: its agent and a digest of its own arguments, ARGV[from..] (from 7, the
-- first op argument, unless a script's leading op arguments are state it read rather than what was
-- asked: a version the caller decided against differs between a call and its repeat).
local function idemStamp(agent, from)
  return '=' .. agent .. '\n' .. redis.sha1hex(table.concat(ARGV, '\0', from or 7)) .. '\n'
end

-- What to answer when `prev`, the stored value of key `idem`, exists: the first reply, or a
-- conflict naming the key and what differs.
local function idemReplay(op, agent, idem, prev, from)
  local sep = string.find(prev, '\n', 1, true)
  local used = 'idempotency_key "' .. idem .. '" was already used '
  local details = { field = 'idempotency_key', key = idem }
  if string.sub(prev, 1, sep - 1) ~= op then
    return fail('conflict', used .. 'for ' .. string.sub(prev, 1, sep - 1) .. '; use a new key for a new call', details)
  end
  local rest = string.sub(prev, sep + 1)
  if string.sub(rest, 1, 1) ~= '=' then return rest end
  local stamp = idemStamp(agent, from)
  if string.sub(rest, 1, #stamp) == stamp then return string.sub(rest, #stamp + 1) end
  local stored = string.sub(rest, 2, string.find(rest, '\n', 1, true) - 1)
  if stored ~= agent then
    return fail('conflict', used .. 'by agent ' .. (stored == '' and '(none)' or stored)
      .. '; use a new key for a new call', details)
  end
  return fail('conflict', used .. 'with other arguments; use a new key for a new call', details)
end
