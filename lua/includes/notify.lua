-- Publishes a notice on the room's sharded channel, inside the same script as the write it
-- announces, so a notice is never lost between write and publish. Listeners treat it as a
-- wake-up and read the truth from Redis. `msg.k` names the kind (event, task, context, ...).
local function notify(R, msg)
  msg.at = R.now
  redis.call('SPUBLISH', R.k.channel, cmsgpack.pack(msg))
end
