-- Delivery health of a team's webhooks, read and written once per script: a cache of decoded
-- records over the health hash. Record: {pending, delivered, failed, dropped, lost, takeovers,
-- consecutive_failures, last_attempt_at?, last_status?, last_error?, last_success_at?, recent = [...]}.
-- `pending` counts the webhook's deliveries waiting or in flight; every script that adds or
-- removes a delivery keeps it exact.
local function healthCache(key)
  local cache = { key = key, loaded = {} }
  function cache.get(id)
    local h = cache.loaded[id]
    if h then return h end
    local raw = redis.call('HGET', key, id)
    h = raw and cmsgpack.unpack(raw) or {}
    for _, f in ipairs({ 'pending', 'delivered', 'failed', 'dropped', 'lost', 'takeovers', 'consecutive_failures' }) do
      h[f] = h[f] or 0
    end
    h.recent = h.recent or {}
    cache.loaded[id] = h
    return h
  end
  function cache.save()
    for id, h in pairs(cache.loaded) do redis.call('HSET', key, id, cmsgpack.pack(h)) end
  end
  return cache
end
