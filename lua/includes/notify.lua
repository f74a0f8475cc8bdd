-- Publishes a notice on the room's sharded channel, inside the same script as the write it
-- announces, so a notice is never lost between write and publish. Listeners treat it as a
-- wake-up and read the truth from Redis. `msg.k` names the kind (event, task, context, ...).
-- A notice of a script that changes what search reads (its header's Effects name content: tasks,
-- context, events; the loader sets CHANGES_CONTENT before the script) carries `cseq`, the room's
-- content sequence (meta.cseq, +1 per such notice): a follower of the room's content
-- (src/search) tells from it whether it missed a notice, and how far it is.
local function notify(R, msg)
  msg.at = R.now
  if CHANGES_CONTENT then
    msg.cseq = redis.call('HINCRBY', R.k.meta, 'cseq', '1')
  end
  redis.call('SPUBLISH', R.k.channel, cmsgpack.pack(msg))
end
