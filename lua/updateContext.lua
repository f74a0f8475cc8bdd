--[[
  Patches a context entry into a new version, atomically: appends text, applies exact-text edits
  in order (each `old` must occur exactly once in the text as it is after the previous edits), or
  replaces the body. A patch that leaves the body as it was is a no-op (changed = false).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      type
  ARGV[8]      key
  ARGV[9]      mode: 'append', 'edits' or 'body'
  ARGV[10]     append: the text to add at the end; edits: msgpack [{old, new}]; body: the new body
  ARGV[11]     expected version ('' = any)
  ARGV[12]     body limit (bytes): the patched body must fit
  ARGV[13]     versions to keep (current one included)
  ARGV[14]     the credential that writes, as JSON text kept with the version (`via`), '' = none

  Returns {entry (metadata without hist), changed}; not_found (entry), conflict (expected version,
  with details {expected_version, version}), invalid_request (an edit's `old` found 0 or several
  times, naming edits[i].old and the count), too_large (the patched body, naming body and its size).
  Publishes {k = 'context', op = 'updated', type, key, version} when a version is made.
  Effects  context
]]
--- @include "includes/openRoom"
--- @include "includes/context"
--- @include "includes/finish"

local R, early = openRoom('updateContext')
if not R then return early end
local ctype, key, mode, payload, expected = ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11]
local maxBytes, keep = tonumber(ARGV[12]), tonumber(ARGV[13])
R.via = ARGV[14]
local field = ctxField(ctype, key)
local meta = loadEntry(R, field)
if not meta then return missingEntry(ctype, key) end
local refused = checkExpected(expected, meta)
if refused then return refused end

-- Positions where `needle` starts (overlapping ones too: "aa" occurs twice in "aaa").
local function occurrences(text, needle)
  local found, from = {}, 1
  while true do
    local at = string.find(text, needle, from, true)
    if not at then return found end
    found[#found + 1] = at
    from = at + 1
  end
end

local old = currentBody(R, field, meta)
local body
if mode == 'append' then
  body = old .. payload
elseif mode == 'body' then
  body = payload
else
  body = old
  for i, edit in ipairs(cmsgpack.unpack(payload)) do
    local at = occurrences(body, edit.old)
    if #at ~= 1 then
      local name = 'edits[' .. (i - 1) .. '].old'
      local why = (#at == 0) and 'was not found' or ('occurs ' .. #at .. ' times')
      return fail('invalid_request', name .. ': the text ' .. why ..
        ' in the entry (after the previous edits); it must occur exactly once, so include more surrounding text',
        { field = name, count = #at })
    end
    body = string.sub(body, 1, at[1] - 1) .. edit.new .. string.sub(body, at[1] + #edit.old)
  end
end

if #body > maxBytes then
  return fail('too_large', 'body: the patched body would be ' .. #body .. ' bytes; the limit is ' .. maxBytes
    .. ' bytes',
    { field = 'body', limit = maxBytes, size = #body })
end
if body == old then
  return finish(R, { entry = compactEntry(meta), changed = false })
end
meta = commitVersion(R, ctype, key, meta, body, keep, 'updated')
return finish(R, { entry = compactEntry(meta), changed = true })
