// Where the indexer writes: the contract (IndexSink) and its Meilisearch implementation.
//
// One index per deployment, not per team: teams are created at run time, and every Meilisearch
// index is a store of its own (memory maps, settings, an embedder configuration and its
// indexing work), so thousands of small indexes cost far more than one index filtered by
// `team_id` and `room_id` (filterable attributes, the way Meilisearch's multi-tenancy guide
// separates tenants). Every search is filtered by both; a document id is a hash of
// (team, room, kind, record), so ids never collide across rooms.
import { createHash } from 'node:crypto'
import { Meilisearch, type EnqueuedTaskPromise, type Embedder, type Settings as MeiliSettings } from 'meilisearch'
import type { SearchSettings } from '../settings.js'
import type { RoomRef } from '../../store/keys.js'
import type { IndexSink } from '../indexer.js'
import type { SourceDoc } from '../records.js'

/** The document Meilisearch stores for one task, context entry or event. */
export interface MeiliDoc {
  id: string
  team_id: string
  room_id: string
  kind: string
  /** The record's id in the room: t7, spec/api, or the event id. */
  rid: string
  /** task title */
  title?: string
  /** context type */
  type?: string
  /** context key */
  key?: string
  /** task notes, context body, or event text */
  body: string
  status?: string
  version?: number
  event_type?: string
  agent_id?: string
  /** Last change or posting, ms. */
  at: number
}

/** The embedder's name in the index settings. */
export const EMBEDDER = 'default'
export const SEARCHABLE = ['title', 'key', 'type', 'body'] as const
export const FILTERABLE = ['team_id', 'room_id', 'kind'] as const
/**
 * Ranking as the Redis engine ranks: the attribute a word matched in (title over notes, key over
 * body), then an exact word over a prefix, and only then the word's position. Needs Meilisearch
 * 1.36 (attributeRank and wordPosition); older servers keep their default rules, where the
 * position within an attribute comes before exactness.
 */
export const RANKING_RULES = ['words', 'typo', 'proximity', 'attributeRank', 'exactness', 'wordPosition', 'sort']

export type { IndexSink } from '../indexer.js'

export function docId(ref: RoomRef, key: string): string {
  return createHash('sha256').update(`${ref.teamId}\n${ref.roomId}\n${key}`).digest('hex')
}

export function toMeiliDoc(ref: RoomRef, d: SourceDoc): MeiliDoc {
  const doc: MeiliDoc = {
    id: docId(ref, d.key),
    team_id: ref.teamId,
    room_id: ref.roomId,
    kind: d.kind,
    rid: d.id,
    body: '',
    at: d.at,
  }
  if (d.kind === 'task') {
    doc.title = d.fields.title ?? ''
    doc.body = d.fields.notes ?? ''
    if (d.meta.status !== undefined) doc.status = d.meta.status
  } else if (d.kind === 'context') {
    doc.type = d.fields.type ?? ''
    doc.key = d.fields.key ?? ''
    doc.body = d.fields.body ?? ''
    if (d.meta.version !== undefined) doc.version = d.meta.version
  } else {
    doc.body = d.fields.text ?? ''
    if (d.meta.type !== undefined) doc.event_type = d.meta.type
    if (d.meta.agent_id !== undefined) doc.agent_id = d.meta.agent_id
  }
  return doc
}

/** Filter of one room's documents (ids are restricted to safe characters by validation). */
export function roomFilter(ref: RoomRef): string {
  return `team_id = ${JSON.stringify(ref.teamId)} AND room_id = ${JSON.stringify(ref.roomId)}`
}

/** The embedder the settings describe, or undefined when semantic search is off. */
export function embedderOf(s: SearchSettings): Embedder | undefined {
  if (!s.meiliEmbedderSource) return undefined
  const e: Record<string, unknown> = {
    source: s.meiliEmbedderSource,
    documentTemplate: '{{doc.kind}} {{doc.title}}{{doc.type}} {{doc.key}}: {{doc.body|truncatewords: 400}}',
  }
  if (s.meiliEmbedderUrl) e.url = s.meiliEmbedderUrl
  if (s.meiliEmbedderModel) e.model = s.meiliEmbedderModel
  if (s.meiliEmbedderApiKey) e.apiKey = s.meiliEmbedderApiKey
  if (s.meiliEmbedderDimensions) e.dimensions = s.meiliEmbedderDimensions
  return e as Embedder
}

/** A request body Meilisearch accepts without trouble (its default payload limit is 100 MB). */
const BATCH_BYTES = 8 * 1024 * 1024

export class MeiliSink implements IndexSink {
  readonly client: Meilisearch
  readonly uid: string
  private ready: Promise<void> | undefined

  constructor(private readonly settings: SearchSettings) {
    this.client = new Meilisearch({ host: settings.meiliUrl!, apiKey: settings.meiliApiKey, timeout: 30_000 })
    this.uid = settings.meiliIndex ?? `${settings.keyPrefix}-records`
  }

  get index() {
    return this.client.index<MeiliDoc>(this.uid)
  }

  /** Creates the index and applies its settings, once per process (again after a failure). */
  ensureIndex(): Promise<void> {
    this.ready ??= this.setUp().catch((err: unknown) => {
      this.ready = undefined
      throw err
    })
    return this.ready
  }

  async apply(ref: RoomRef, docs: SourceDoc[], deleteKeys: string[]): Promise<void> {
    await this.ensureIndex()
    let batch: MeiliDoc[] = []
    let bytes = 0
    for (const d of docs) {
      const doc = toMeiliDoc(ref, d)
      const size = Buffer.byteLength(doc.body) + 512
      if (batch.length > 0 && bytes + size > BATCH_BYTES) {
        await done(this.index.addDocuments(batch, { primaryKey: 'id' }))
        batch = []
        bytes = 0
      }
      batch.push(doc)
      bytes += size
    }
    if (batch.length > 0) await done(this.index.addDocuments(batch, { primaryKey: 'id' }))
    for (let i = 0; i < deleteKeys.length; i += 1000) {
      await done(this.index.deleteDocuments(deleteKeys.slice(i, i + 1000).map((k) => docId(ref, k))))
    }
  }

  /** Deletes every document of a team (its account is being deleted). */
  async dropTeam(teamId: string): Promise<void> {
    await this.ensureIndex()
    await done(this.index.deleteDocuments({ filter: `team_id = ${JSON.stringify(teamId)}` }))
  }

  async dropRoom(ref: RoomRef): Promise<void> {
    await this.ensureIndex()
    await done(this.index.deleteDocuments({ filter: roomFilter(ref) }))
  }

  private async setUp(): Promise<void> {
    try {
      await done(this.client.createIndex(this.uid, { primaryKey: 'id' }))
    } catch (err) {
      if (!/index_already_exists|already exists/.test(String((err as Error).message))) throw err
    }
    const settings: MeiliSettings = {
      searchableAttributes: [...SEARCHABLE],
      filterableAttributes: [...FILTERABLE],
    }
    const embedder = embedderOf(this.settings)
    if (embedder) settings.embedders = { [EMBEDDER]: embedder }
    await done(this.index.updateSettings(settings))
    try {
      await done(this.index.updateRankingRules(RANKING_RULES))
    } catch (err) {
      // Before 1.36 the new rules are refused (at once, or as a failed task): keep the default ones.
      const code = (err as { cause?: { code?: unknown } }).cause?.code
      if (!/ranking[ _]?rules?/i.test(`${(err as Error).message} ${String(code)}`)) throw err
    }
  }
}

/** Waits for a Meilisearch task; throws with its error when it did not succeed. */
async function done(task: EnqueuedTaskPromise): Promise<void> {
  const t = await task.waitTask({ timeout: 120_000, interval: 50 })
  if (t.status !== 'succeeded') {
    const e = t.error
    throw new Error(`meilisearch task ${t.uid} ${t.type} ${t.status}${e ? `: ${e.code}: ${e.message}` : ''}`)
  }
}
