// Context: typed, durable documents keyed by (type, key) with a text body and a short version
// history. Rules that need the room's state (expected versions, edits against the current text,
// count limits, trimming the history) run inside the Lua scripts; this module validates input,
// shapes arguments, decodes the raw records and makes diffs.
import { decode, encode } from '../shared/msgpack.js'
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff'
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { invalid } from '../shared/errors.js'
import { entryItem, page } from './compact.js'
import { contextKey, contextType, requireAgent, viaArg, type Caller } from './fields.js'
import { viaOf, type Via } from '../shared/fields.js'
import { callOptions, decodeRecord } from './records.js'
import { iso, withIsoTimes } from '../shared/time.js'
import { list, parse, text } from '../shared/validate.js'

/** An entry as results show it: its metadata, without body or history. */
export interface ContextEntry {
  type: string
  key: string
  version: number
  size: number
  updated_by?: string
  updated_at: string
  created_at: string
  created_by?: string
  /** The credentials that made its first and its current (or the version read) version. */
  created_via?: Via
  updated_via?: Via
}

/** One kept version, as get_context_history lists them. */
export interface ContextVersion {
  version: number
  updated_by?: string
  /** The credential that wrote this version. */
  via?: Via
  updated_at: string
  size: number
}

/** The stored metadata (ctx hash): the entry plus its kept versions, oldest first; `via`s are JSON text. */
type StoredMeta = Omit<ContextEntry, 'created_via' | 'updated_via'> & {
  created_via?: string
  updated_via?: string
  hist?: { v: number; by?: string; via?: string; at: number; size: number }[]
}
/** The stored record of one version (ctxv hash). */
type StoredVersion = { body: string; by?: string; via?: string; at?: number }

/** Entries list_context returns unless given a limit. */
export const CONTEXT_LIST_DEFAULT = 50

/** Most edits one update_context call may apply. */
export const MAX_EDITS = 50

export function contextSchemas(s: CoreSettings) {
  const ref = { type: contextType, key: contextKey }
  const version = z
    .number()
    .int()
    .min(1, 'must be 1 or more')
    .max(2 ** 31)
  const expectedVersion = z
    .number()
    .int()
    .min(0, 'must be 0 (must not exist yet) or a version')
    .max(2 ** 31)
    .optional()
  const body = text(s.contextBodyBytes)
  const edit = z.object({ old: text(s.contextBodyBytes).min(1, 'must not be empty'), new: text(s.contextBodyBytes) })
  return {
    write: z.object({ ...ref, body, expected_version: expectedVersion }),
    read: z.object({ ...ref, version: version.optional() }),
    update: z.object({
      ...ref,
      append: body.min(1, 'must not be empty').optional(),
      edits: list(edit, MAX_EDITS).min(1, 'must have at least one edit').optional(),
      body: body.optional(),
      expected_version: expectedVersion,
    }),
    list: z.object({
      type: contextType.optional(),
      limit: z
        .number()
        .int()
        .min(1, 'must be at least 1')
        .max(s.contextPerRoom, `must be at most ${s.contextPerRoom}`)
        .default(CONTEXT_LIST_DEFAULT),
    }),
    ref: z.object(ref),
    diff: z.object({
      ...ref,
      from_version: z
        .number()
        .int()
        .min(0, 'must be 0 (empty) or a version')
        .max(2 ** 31)
        .optional(),
      to_version: version.optional(),
    }),
  }
}

const expected = (v: number | undefined): string => (v === undefined ? '' : String(v))

/** The compact entry, with ISO times and fields in a stable order. */
export function toEntry(rec: Record<string, unknown>): ContextEntry {
  const m = withIsoTimes({ ...rec }) as unknown as StoredMeta
  const e: ContextEntry = {
    type: m.type,
    key: m.key,
    version: m.version,
    size: m.size,
    updated_at: m.updated_at,
    created_at: m.created_at,
  }
  if (m.updated_by !== undefined) e.updated_by = m.updated_by
  if (m.created_by !== undefined) e.created_by = m.created_by
  const created = viaOf(m.created_via)
  const updated = viaOf(m.updated_via)
  if (created !== undefined) e.created_via = created
  if (updated !== undefined) e.updated_via = updated
  return e
}

/** Stable order of a listing: by type, then key. */
export function byTypeThenKey(a: ContextEntry, b: ContextEntry): number {
  if (a.type !== b.type) return a.type < b.type ? -1 : 1
  if (a.key !== b.key) return a.key < b.key ? -1 : 1
  return 0
}

/** Counts the added and removed lines of a unified diff (hunk lines only, not the file headers). */
function countChanges(patch: string): { added: number; removed: number } {
  let added = 0
  let removed = 0
  let inHunks = false
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) inHunks = true
    else if (inHunks && line.startsWith('+')) added++
    else if (inHunks && line.startsWith('-')) removed++
  }
  return { added, removed }
}

export class Context {
  readonly schemas: ReturnType<typeof contextSchemas>

  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {
    this.schemas = contextSchemas(settings)
  }

  /** Creates the entry (version 1) or replaces its body; the same body again changes nothing. */
  async write(c: Caller, input: unknown) {
    const v = parse(this.schemas.write, input)
    requireAgent(c)
    const r = await this.store.room('writeContext', c.room, callOptions(c), [
      v.type,
      v.key,
      v.body,
      expected(v.expected_version),
      this.settings.contextPerRoom,
      this.settings.contextHistory,
      viaArg(c),
    ])
    return { entry: toEntry(r.entry), changed: r.changed, created: r.created, unread: r.unread }
  }

  /** The current body, or a kept older one with who wrote it; current_version tells the latest. */
  async read(c: Caller, input: unknown) {
    const v = parse(this.schemas.read, input)
    const r = await this.store.room('readContext', c.room, callOptions(c), [v.type, v.key, v.version ?? ''])
    const meta = decode(r.rows[0]!) as Record<string, unknown>
    const rec = decode(r.rows[1]!) as StoredVersion
    const entry = toEntry({
      ...meta,
      version: v.version ?? meta.version,
      size: Buffer.byteLength(rec.body),
      updated_at: rec.at ?? meta.updated_at,
      updated_by: rec.by,
      updated_via: rec.via,
    })
    return { entry, body: rec.body, current_version: meta.version as number, unread: r.unread }
  }

  /** Patches the entry into a new version: exactly one of append, edits or body. */
  async update(c: Caller, input: unknown) {
    const v = parse(this.schemas.update, input)
    requireAgent(c)
    const given = (['append', 'edits', 'body'] as const).filter((m) => v[m] !== undefined)
    if (given.length !== 1) {
      throw invalid(
        `append, edits, body: give exactly one of them (got ${given.length === 0 ? 'none' : given.join(' and ')})`,
        { field: 'append|edits|body' },
      )
    }
    const mode = given[0]!
    const payload = mode === 'edits' ? Buffer.from(encode(v.edits)) : (v[mode] as string)
    const r = await this.store.room('updateContext', c.room, callOptions(c), [
      v.type,
      v.key,
      mode,
      payload,
      expected(v.expected_version),
      this.settings.contextBodyBytes,
      this.settings.contextHistory,
      viaArg(c),
    ])
    return { entry: toEntry(r.entry), changed: r.changed, unread: r.unread }
  }

  /** The first `limit` entries as compact items (no bodies), of one type or all, sorted by type then key. */
  async list(c: Caller, input: unknown = {}) {
    const v = parse(this.schemas.list, input)
    const r = await this.store.room('listContext', c.room, callOptions(c), [v.type ?? ''])
    const all = r.rows.map((row) => toEntry(decode(row) as Record<string, unknown>)).sort(byTypeThenKey)
    const entries = all.slice(0, v.limit).map(entryItem)
    return { entries, ...page(entries.length, all.length, this.settings.contextPerRoom), unread: r.unread }
  }

  /** Removes the entry, every kept version and its pending reviews. */
  async delete(c: Caller, input: unknown) {
    const v = parse(this.schemas.ref, input)
    const r = await this.store.room('deleteContext', c.room, callOptions(c), [v.type, v.key])
    return { deleted: r.deleted, reviews_removed: r.reviews_removed, unread: r.unread }
  }

  /** The kept versions, newest first. */
  async history(c: Caller, input: unknown) {
    const v = parse(this.schemas.ref, input)
    const r = await this.store.room('readContextHistory', c.room, callOptions(c), [v.type, v.key])
    const meta = decodeRecord<Record<string, unknown>>(r.rows[0]!)
    const versions: ContextVersion[] = ((meta.hist as StoredMeta['hist']) ?? [])
      .map((h) => {
        const out: ContextVersion = { version: h.v, updated_at: iso(h.at), size: h.size }
        if (h.by !== undefined) out.updated_by = h.by
        const via = viaOf(h.via)
        if (via !== undefined) out.via = via
        return out
      })
      .reverse()
    return { entry: toEntry(meta), versions, unread: r.unread }
  }

  /**
   * A unified diff between two kept versions (default: the previous one to the current one;
   * version 0 is the empty text before the entry existed), with counts of added and removed lines.
   */
  async diff(c: Caller, input: unknown) {
    const v = parse(this.schemas.diff, input)
    const r = await this.store.room('readContextVersions', c.room, callOptions(c), [
      v.type,
      v.key,
      v.from_version ?? '',
      v.to_version ?? '',
    ])
    const bodyOf = (row: Buffer) => (row.length === 0 ? '' : (decode(row) as StoredVersion).body)
    const { from_version: from, to_version: to } = r
    const label = (n: number) => `${v.type}/${v.key} v${n}`
    const patch = createTwoFilesPatch(
      label(from),
      label(to),
      bodyOf(r.rows[0]!),
      bodyOf(r.rows[1]!),
      undefined,
      undefined,
      { headerOptions: FILE_HEADERS_ONLY },
    )
    return {
      type: v.type,
      key: v.key,
      from_version: from,
      to_version: to,
      current_version: r.current_version,
      ...countChanges(patch),
      patch,
      unread: r.unread,
    }
  }
}
