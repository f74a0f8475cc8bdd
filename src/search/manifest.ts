// A room's manifest (its position in an index: src/search/indexer.ts) against what the room holds
// now: what a sync writes to the index and deletes from it. The manifest's fields: `room` (the
// room's created_at), `gen`, `pos` (the content seq it is synced to), `elast`, and what the index
// holds: `t:<task id>` = updated_at, `c:<type>/<key>` = version, `e:<seq>` = event id. And
// `r:<doc key>`: a document a node wrote when it may no longer have held the room (it stalled
// past its lease, and another node may have synced the room meanwhile, its manifest calling the
// room current): the next sync writes it again from the room, or deletes it when its record is
// gone, whatever the other fields say.
import { docKey, seqOfId, type RoomListing, type SourceDoc } from './records.js'

export interface ManifestDiff {
  /** Task ids and context entries ("<type>/<key>") to write. */
  tasks: string[]
  context: string[]
  /** Documents to delete (doc keys). */
  deleteKeys: string[]
  /** Fields to remove once that is done: those of the deleted documents, and the `r:` fields read. */
  delFields: string[]
}

/** What a sync of `listing` writes and deletes, from the manifest it read with it (`listing.stored`). */
export function diffManifest(listing: RoomListing): ManifestDiff {
  const stored = listing.stored
  const eventGone = (seq: number) => seq <= listing.trim || listing.evdel.has(seq)
  const again = new Set<string>()
  const deleteKeys = new Set<string>()
  const delFields: string[] = []
  for (const [field, value] of stored) {
    const [kind, id] = [field.slice(0, 2), field.slice(2)]
    if (kind === 'r:') {
      // An event's text never changes: only one that is gone needs anything.
      const at = id.indexOf(':')
      const [what, rid] = [id.slice(0, at), id.slice(at + 1)]
      const exists =
        what === 'task'
          ? listing.tasks.has(rid)
          : what === 'context'
            ? listing.context.has(rid)
            : !eventGone(seqOfId(rid))
      if (!exists) deleteKeys.add(id)
      else if (what !== 'event') again.add(id)
      delFields.push(field)
      continue
    }
    const gone =
      (kind === 't:' && !listing.tasks.has(id)) ||
      (kind === 'c:' && !listing.context.has(id)) ||
      (kind === 'e:' && eventGone(Number(id)))
    if (!gone) continue
    delFields.push(field)
    deleteKeys.add(kind === 't:' ? docKey('task', id) : kind === 'c:' ? docKey('context', id) : docKey('event', value))
  }
  const changed =
    (prefix: 't:' | 'c:', kind: 'task' | 'context') =>
    ([id, stamp]: [string, number]) =>
      stored.get(`${prefix}${id}`) !== String(stamp) || again.has(docKey(kind, id))
  return {
    tasks: [...listing.tasks].filter(changed('t:', 'task')).map(([id]) => id),
    context: [...listing.context].filter(changed('c:', 'context')).map(([f]) => f),
    deleteKeys: [...deleteKeys],
    delFields,
  }
}

/** The manifest field of a written document. */
export function fieldOf(d: SourceDoc): string {
  if (d.kind === 'task') return `t:${d.id}`
  if (d.kind === 'context') return `c:${d.id}`
  return `e:${seqOfId(d.id)}`
}

/** The manifest field of a task or context entry by its doc key. */
export function fieldOfKey(key: string): string {
  return key.startsWith('task:') ? `t:${key.slice(5)}` : `c:${key.slice(8)}`
}

/**
 * The manifest change after a write that may have overwritten another node's newer documents:
 * the next sync writes them again (`r:` fields), and `pos` goes, so the sweep finds the room
 * behind even if its mark is lost, and searches say its index is behind until then.
 */
export function redoChange(docKeys: string[]): { set: Record<string, string>; del: string[] } {
  return { set: Object.fromEntries(docKeys.map((k) => [`r:${k}`, '1'])), del: ['pos'] }
}
