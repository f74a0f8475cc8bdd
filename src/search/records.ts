// What search reads of a room, turned into source documents that both engines index: a task
// (title, notes), a context entry (type, key, body), an event (text). Long texts are cut to
// SEARCH_FIELD_BYTES. Three reads: the script every search runs (pick: position, unread, the
// records its notices marked dirty), a listing of what exists (ids and stamps), and chunks of
// records by id, so no call holds Redis long whatever the room's size.
import { decode, encode } from '../shared/msgpack.js'
import type { SearchSettings } from './settings.js'
import type { CallOptions, Store } from '../store/store.js'
import type { RoomRef } from '../store/keys.js'
import { readChunk, readListing } from '../store/search.js'
import { AppError, RoomNotFound } from '../shared/errors.js'
import { iso } from '../shared/time.js'
import { refOf, type SearchHit, type SearchKind } from './engine.js'
import type { Field } from './lexical.js'
import { cutBytes } from './text.js'

/** The hit fields a record gives, before ranking adds field, snippet and score. */
export type HitBase = Omit<SearchHit, 'field' | 'snippet' | 'score'>

export interface SourceDoc {
  kind: SearchKind
  /** t7, spec/api, or the event id. */
  id: string
  /** Unique in the room: "<kind>:<id>". */
  key: string
  /** Last change (task, context) or posting (event), ms. */
  at: number
  fields: Partial<Record<Field, string>>
  meta: HitBase
  /** Changes whenever the record's searchable content may have: task updated_at, context version. */
  stamp: string
}

/** What a search's script read (lua/readSearchDocs.lua), at one moment. */
export interface RoomRead {
  /** The room's content seq this read reflects. */
  cseq: number
  /** The room's created_at (ms): tells a re-created room from the one before. */
  createdAt: number
  /** Seq of the last event trimmed away; events at or below it are gone. */
  trim: number
  /** The Meilisearch indexer's position in the room ('' when none). */
  indexedPos: string
  /** The room incarnation (created_at) that position belongs to ('' when none). */
  indexedRoom: string
  unread?: number
  tasks: SourceDoc[]
  context: SourceDoc[]
}

/** Records read outside a script (SearchReader.chunk), with the room incarnation they belong to. */
export interface Chunk {
  createdAt: number
  tasks: SourceDoc[]
  context: SourceDoc[]
  events: SourceDoc[]
  /** Doc keys of entries that changed since the listing and were left out. */
  changed: string[]
}

export interface RoomListing {
  cseq: number
  createdAt: number
  trim: number
  /** Seq of the last event posted (events trim+1..eseq are retained, less the deleted ones). */
  eseq: number
  /** task id -> updated_at (ms) */
  tasks: Map<string, number>
  /** "<type>/<key>" -> version */
  context: Map<string, number>
  /** Seqs of deleted events still within the retained range. */
  evdel: Set<number>
  /** The stored manifest of the index being synced (src/search/indexer.ts). */
  stored: Map<string, string>
}

export interface Pick {
  t?: string[]
  c?: string[]
}

export type Section = 'tasks' | 'context' | 'events'
export const SECTIONS: readonly Section[] = ['tasks', 'context', 'events']
/**
 * Stored bytes one read of a room's records touches at most: what a script call costs Redis is
 * what it reads, whatever it returns, so chunks are sized by the largest record a kind may hold.
 */
const PAGE_BYTES = 1024 * 1024

export const docKey = (kind: SearchKind, id: string) => `${kind}:${id}`
export const seqOfId = (id: string) => Number(id.slice(id.indexOf('-') + 1))

/** Decodes text the script cut at a byte count: a character cut in two is dropped. */
function cutText(buf: Buffer | undefined): string {
  if (!buf || buf.length === 0) return ''
  return buf.toString('utf8').replace(/\uFFFD+$/, '')
}

export function taskDoc(raw: Buffer, notes: string): SourceDoc {
  const t = decode(raw) as { id: string; title: string; status: string; updated_at: number }
  return {
    kind: 'task',
    id: t.id,
    key: docKey('task', t.id),
    at: t.updated_at,
    fields: { title: t.title, notes },
    meta: { ref: refOf('task', t.id), kind: 'task', id: t.id, title: t.title, status: t.status, at: iso(t.updated_at) },
    stamp: String(t.updated_at),
  }
}

export function contextDoc(raw: Buffer, body: string): SourceDoc {
  const m = decode(raw) as { type: string; key: string; version: number; updated_at: number }
  const id = `${m.type}/${m.key}`
  return {
    kind: 'context',
    id,
    key: docKey('context', id),
    at: m.updated_at,
    fields: { type: m.type, key: m.key, body },
    meta: {
      ref: refOf('context', id),
      kind: 'context',
      id,
      type: m.type,
      key: m.key,
      version: m.version,
      at: iso(m.updated_at),
    },
    stamp: String(m.version),
  }
}

/** An event from its stream id and stored record, or from the record a notice carries (with id). */
export function eventDoc(
  id: string,
  rec: { type: string; agent_id: string; text: string; created_at: number },
): SourceDoc {
  return {
    kind: 'event',
    id,
    key: docKey('event', id),
    at: rec.created_at,
    fields: { text: rec.text },
    meta: {
      ref: refOf('event', id),
      kind: 'event',
      id,
      type: rec.type,
      agent_id: rec.agent_id,
      at: iso(rec.created_at),
    },
    stamp: '1',
  }
}

/** Reads a room's searchable records (see lua/readSearchDocs.lua for the modes). */
export class SearchReader {
  constructor(
    private readonly store: Store,
    private readonly settings: SearchSettings,
    /** The index position every search reads (pick): the Meilisearch manifest unless told otherwise. */
    private readonly manifestOf: (ref: RoomRef) => string = (ref) => store.keys.searchManifest(ref),
  ) {}

  /** Records per read of a section, so that one read touches at most about PAGE_BYTES of stored records. */
  pageCount(section: Section): number {
    const s = this.settings
    const largest =
      section === 'tasks'
        ? s.taskNotesBytes
        : section === 'context'
          ? s.contextBodyBytes
          : s.eventTextBytes + s.eventDataBytes
    return Math.max(4, Math.floor(PAGE_BYTES / (largest + 256)))
  }

  /**
   * Reads the whole room: one listing, then the records it names a chunk at a time, so no call
   * holds Redis long. The chunks are read at different moments; `onChunk` gets each. Returns the
   * listing: the room's position when the read began. Not room activity.
   */
  async readAll(ref: RoomRef, onChunk: (chunk: Chunk) => Promise<void> | void): Promise<RoomListing> {
    const listing = await this.listing(ref)
    const tasks = [...listing.tasks.keys()]
    const context = [...listing.context.keys()]
    const [tn, cn, en] = SECTIONS.map((sec) => this.pageCount(sec)) as [number, number, number]
    let after = ''
    for (let i = 0; ; i++) {
      const chunk = await this.chunk(
        ref,
        listing,
        tasks.slice(i * tn, (i + 1) * tn),
        context.slice(i * cn, (i + 1) * cn),
        after,
        en,
      )
      if (chunk.createdAt !== listing.createdAt)
        throw new AppError('conflict', 'the room was created again while it was read')
      await onChunk(chunk)
      if (chunk.events.length > 0) after = chunk.events[chunk.events.length - 1]!.id
      if ((i + 1) * tn >= tasks.length && (i + 1) * cn >= context.length && chunk.events.length < en) return listing
    }
  }

  /**
   * The named tasks and context entries, and up to `count` events after `after`, in one
   * MULTI of plain reads: a script would copy every stored body into Lua strings, and the Lua
   * collector then holds Redis for tens of ms (measured). Records gone since the listing are left
   * out; an entry whose version moved since the listing is left out and named in `changed` (its
   * notice, or the next sync, reads it again).
   */
  async chunk(
    ref: RoomRef,
    listing: RoomListing,
    taskIds: string[],
    fields: string[],
    after: string,
    count: number,
  ): Promise<Chunk> {
    const read = await readChunk(
      this.store,
      ref,
      taskIds,
      fields,
      fields.map((f) => `${f}#${listing.context.get(f)}`),
      after,
      count,
    )
    const cap = this.settings.searchFieldBytes
    const out: Chunk = { createdAt: Number(read.createdAt ?? 0), tasks: [], context: [], events: [], changed: [] }
    read.tasks.forEach((raw, i) => raw && out.tasks.push(taskDoc(raw, cutText(read.notes[i]?.subarray(0, cap)))))
    read.context.forEach((raw, i) => {
      const v = read.versions[i]
      if (!raw) return
      if (!v || (decode(raw) as { version: number }).version !== listing.context.get(fields[i]!)) {
        out.changed.push(docKey('context', fields[i]!))
        return
      }
      out.context.push(contextDoc(raw, cutBytes(String((decode(v) as { body?: string }).body ?? ''), cap)))
    })
    for (const [id, kv] of read.events) out.events.push(eventDoc(id.toString('utf8'), decode(kv[1]!) as never))
    return out
  }

  /**
   * The script every search runs first: position, unread count, and the records named. Counts as
   * activity unless opts.touch is false. One call reads at most about PAGE_BYTES of stored
   * records (the script stops there); the rest are read by further calls, which are not activity.
   * The answer's position is the first call's: the records read later are at least that new.
   */
  async pick(ref: RoomRef, opts: CallOptions, want: Pick): Promise<RoomRead> {
    let t = want.t ?? []
    let c = want.c ?? []
    let out: RoomRead | undefined
    for (;;) {
      const r = await this.store.room(
        'readSearchDocs',
        ref,
        out ? { touch: false } : opts,
        [this.settings.searchFieldBytes, Buffer.from(encode({ t, c })), PAGE_BYTES],
        [this.manifestOf(ref)],
      )
      const { sections: s, done } = r
      if (!out) {
        out = {
          cseq: r.cseq,
          createdAt: r.created_at,
          trim: r.trim,
          indexedPos: r.ipos,
          indexedRoom: r.iroom,
          tasks: [],
          context: [],
        }
        if (r.unread !== undefined) out.unread = r.unread
      } else if (r.created_at !== out.createdAt) {
        out.createdAt = r.created_at // created again between two calls: the caller reads it again
      }
      let at = 0
      for (let i = 0; i < s.tasks; i++, at += 2) out.tasks.push(taskDoc(r.rows[at]!, cutText(r.rows[at + 1])))
      for (let i = 0; i < s.context; i++, at += 2) out.context.push(contextDoc(r.rows[at]!, cutText(r.rows[at + 1])))
      t = t.slice(done.t)
      c = c.slice(done.c)
      if (t.length + c.length === 0) return out
    }
  }

  /** What exists (ids and stamps) and the stored manifest, without the records. Not room activity. */
  async listing(ref: RoomRef, manifest = this.store.keys.searchManifest(ref)): Promise<RoomListing> {
    // Decoded here, not in Lua: decoding 3,000 records in Lua held Redis ~10 ms.
    const l = await readListing(this.store, ref, manifest)
    if (l.createdAt === null) throw new RoomNotFound(ref.roomId)
    return {
      cseq: Number(l.cseq ?? 0),
      createdAt: Number(l.createdAt),
      trim: Number(l.trim ?? 0),
      eseq: Number(l.eseq ?? 0),
      tasks: new Map(
        Object.entries(l.tasks).map(([id, raw]) => [id, (decode(raw) as { updated_at: number }).updated_at]),
      ),
      context: new Map(Object.entries(l.context).map(([f, raw]) => [f, (decode(raw) as { version: number }).version])),
      evdel: new Set(l.evdel.map(Number)),
      stored: new Map(Object.entries(l.manifest)),
    }
  }
}
