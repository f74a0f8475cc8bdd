// Where the vector indexer writes (src/search/indexer.ts runs it, with keys of its own): each
// record's text is embedded, quantised (codec.ts) and written beside the room in Redis, in the
// indexer's own batches, so a write to the room never waits for an embedding. A record whose
// text is unchanged (a task whose status alone changed) is not embedded again: its vector
// carries the hash of the text it was made from. A room keeps at most SEARCH_VECTORS_PER_ROOM
// vectors: tasks and context entries first, then the newest events; the events that would not
// fit are not embedded at all.
import { randomBytes } from 'node:crypto'
import type { RoomRef } from '../../store/keys.js'
import type { VectorPut, VectorStore } from '../../store/vectors.js'
import type { Embedder } from '../embed/embedder.js'
import type { IndexSink } from '../indexer.js'
import type { Field } from '../lexical.js'
import { seqOfId, type RoomListing, type SourceDoc } from '../records.js'
import { fp32, pack, quantize, textHash } from './codec.js'

/**
 * Added to the keep priority of tasks and context entries, so they go past the bound after every
 * event (above any time in ms).
 */
export const RECORD_BAND = 2 ** 50

/** The text of a record that is embedded: what it is about first, cut to `chars` characters. */
export function embedText(doc: { kind: string; fields: Partial<Record<Field, string>> }, chars: number): string {
  const f = doc.fields
  const text =
    doc.kind === 'task'
      ? `${f.title ?? ''}\n${f.notes ?? ''}`
      : doc.kind === 'context'
        ? `${f.type ?? ''}/${f.key ?? ''}\n${f.body ?? ''}`
        : (f.text ?? '')
  let cut = text.length > chars ? text.slice(0, chars) : text
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1) // never half a character
  return cut.trim()
}

export interface VectorSinkOptions {
  bound: number
  textChars: number
  /** Texts per embedding request (EMBEDDER_BATCH); each request's vectors are written at once. */
  batch: number
  /** Whether vectors also go into the room's vector set (decided at start). */
  mirror: () => boolean
  /** What the vectors are made with: generationOf(). */
  generation: string
}

/** The vectors' generation: the model, and the size asked of it (EMBEDDER_DIMENSIONS) when one is. */
export function generationOf(model: string, dimensions: number | undefined): string {
  return dimensions ? `${model}@${dimensions}` : model
}

export class VectorSink implements IndexSink {
  readonly generation: string

  constructor(
    private readonly vectors: VectorStore,
    private readonly embedder: Embedder,
    private readonly opts: VectorSinkOptions,
  ) {
    this.generation = opts.generation
  }

  async apply(ref: RoomRef, docs: SourceDoc[], deleteKeys: string[], listing?: RoomListing): Promise<void> {
    const after = listing ? eventCut(listing, this.opts.bound) : 0
    const chosen = docs.filter((d) => d.kind !== 'event' || seqOfId(d.id) > after)
    const texts = chosen.map((d) => embedText(d, this.opts.textChars))
    const hashes = texts.map(textHash)
    const have = await this.vectors.hashes(
      ref,
      chosen.map((d) => d.key),
    )
    const todo = chosen.map((_, i) => i).filter((i) => have[i] !== hashes[i])
    const mirror = this.opts.mirror()
    // One write per embedding request: what was embedded is kept even when a later request fails.
    const per = this.opts.batch
    for (let i = 0; i < todo.length; i += per) {
      const part = todo.slice(i, i + per)
      const made = await this.embedder.embed(part.map((j) => texts[j]!))
      const put: VectorPut[] = []
      part.forEach((j, n) => {
        const v = quantize(made[n]!)
        if (!v) return // a zero vector has no direction: the record is found by its words only
        const d = chosen[j]!
        const p: VectorPut = {
          key: d.key,
          packed: pack(hashes[j]!, v),
          priority: d.kind === 'event' ? d.at : RECORD_BAND + d.at,
        }
        if (mirror) {
          p.fp32 = fp32(v)
          p.attrs = JSON.stringify({ k: d.kind })
        }
        put.push(p)
      })
      await this.vectors.write(ref, { put, del: [], gen: this.generation }, this.opts.bound, mirror)
    }
    if (deleteKeys.length > 0)
      await this.vectors.write(ref, { put: [], del: deleteKeys, gen: this.generation }, this.opts.bound, mirror)
  }

  async dropRoom(ref: RoomRef): Promise<void> {
    await this.vectors.drop(ref, randomBytes(8).toString('hex'))
  }

  async keepAlive(ref: RoomRef, ttlMs: number): Promise<void> {
    await this.vectors.keepAlive(ref, ttlMs)
  }
}

/**
 * The seq at or below which a room's events get no vector: the bound less the room's tasks and
 * context entries leaves room for the newest events only (deleted ones are not counted out, so a
 * few fewer may get one).
 */
export function eventCut(listing: RoomListing, bound: number): number {
  const slots = bound - listing.tasks.size - listing.context.size
  return slots <= 0 ? Infinity : Math.max(listing.trim, listing.eseq - slots)
}
