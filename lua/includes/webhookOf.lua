-- A team's webhook record by id (`hooks`: the team's webhooks hash), or nil and the not_found
-- reply naming webhookId, for the caller to return. Needs includes/fail.
local function webhookOf(hooks, id)
  local raw = redis.call('HGET', hooks, id)
  if not raw then
    return nil, fail('not_found', 'webhookId: no webhook ' .. id .. ' in this team', { field = 'webhookId' })
  end
  return cmsgpack.unpack(raw)
end
