-- Publishes a notice on the room's sharded channel, inside the same script as the write it
-- announces, so a notice is never lost between write and publish. Listeners treat it as a
-- wake-up and read the truth from Redis. `msg.k` names the kind (event, task, context, ...).
-- A notice that changes what search reads (a task, a context entry, an event posted or deleted)
-- carries `cseq`, the room's content sequence (meta.cseq, +1 per such notice): a follower of the
-- room's content (src/search) tells from it whether it missed a notice, and how far it is.
local function notify(R, msg)
  msg.at = R.now
  if msg.k == 'task' or msg.k == 'context' or msg.event_id ~= nil or (msg.k == 'event' and msg.op ~= 'read') then
    msg.cseq = redis.call('HINCRBY', R.k.meta, 'cseq', '1')
  end
  redis.call('SPUBLISH', R.k.channel, cmsgpack.pack(msg))
end
