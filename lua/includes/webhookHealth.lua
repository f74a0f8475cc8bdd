-- Delivery health of a team's webhooks, read and written once per script: a cache of decoded
-- records over the health hash. Record: {pending, delivered, failed, dropped, lost, takeovers,
-- consecutive_failures, last_attempt_at?, last_status?, last_error?, last_success_at?, recent = [...],
-- attempts = [...]}.
-- `pending` counts the webhook's deliveries waiting or in flight; every script that adds or
-- removes a delivery keeps it exact. cache.fail records a delivery that failed for good.
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
    h.attempts = h.attempts or {}
    cache.loaded[id] = h
    return h
  end
  -- A delivery of webhook `id` failed for good: it leaves `pending` and is kept first in `recent`
  -- (entry: {id, room, ev, n, at, status?, error?}), which holds at most `keep`.
  function cache.fail(id, entry, keep)
    local h = cache.get(id)
    h.pending = math.max(0, h.pending - 1)
    h.failed = h.failed + 1
    h.consecutive_failures = h.consecutive_failures + 1
    table.insert(h.recent, 1, entry)
    while #h.recent > keep do table.remove(h.recent) end
  end
  -- An attempt of a delivery of webhook `id` got an answer or an error: kept first in `attempts`
  -- (entry: {id, room, ev, n, at, outcome, status?, error?}), which holds at most `keep`.
  function cache.attempt(id, entry, keep)
    local h = cache.get(id)
    table.insert(h.attempts, 1, entry)
    while #h.attempts > keep do table.remove(h.attempts) end
  end
  function cache.save()
    for id, h in pairs(cache.loaded) do redis.call('HSET', key, id, cmsgpack.pack(h)) end
  end
  return cache
end
