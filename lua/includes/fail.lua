-- An error reply: the store turns it into an AppError with this code, message and details.
local function fail(code, msg, details)
  return cmsgpack.pack({ err = code, msg = msg, details = details })
end
