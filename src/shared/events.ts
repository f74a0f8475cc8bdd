// A room event as every layer hands it out, decoded from its stored record: the room model reads
// it, the realtime feed streams it and webhook deliveries carry it, all in this one shape.
import { viaOf, type Via } from './fields.js'
import { withIsoTimes } from './time.js'

export interface RoomEvent {
  id: string
  type: string
  agent_id: string
  text: string
  /** Small JSON value attached by the poster. */
  data?: unknown
  /** The event this one answers (reply_to_event). */
  reply_to?: string
  /** The credential that posted it (absent on events from before credentials were recorded). */
  via?: Via
  created_at: string
}

/** An event from its stream id and stored record (msgpack: times in ms, data as JSON text). */
export function eventOf(id: string, rec: Record<string, unknown>): RoomEvent {
  const r = withIsoTimes(rec)
  const ev: RoomEvent = {
    id,
    type: String(r.type),
    agent_id: String(r.agent_id),
    text: String(r.text ?? ''),
    created_at: String(r.created_at),
  }
  if (typeof r.data === 'string') ev.data = JSON.parse(r.data)
  if (typeof r.reply_to === 'string') ev.reply_to = r.reply_to
  const via = viaOf(r.via)
  if (via !== undefined) ev.via = via
  return ev
}

/** An event that came back decoded inside a script's reply (it carries its id). */
export function eventFromReply(rec: Record<string, unknown>): RoomEvent {
  return eventOf(String(rec.id), rec)
}
