// The Meilisearch engine, used when MEILI_URL is set: full text of whole records at any scale,
// typo tolerance, and semantic (hybrid) search when an embedder is configured. The node also runs
// the indexer (indexer.ts) that keeps the one index of the deployment in step with every room.
//
// Each search first runs the room's search script in Redis (one round trip): it answers
// not_found for a room that is gone, counts as activity, gives the caller's unread count, and
// tells whether the room's indexed position is behind its content (the answer then carries a
// note, and the room is marked so an indexer catches up). When Meilisearch cannot be reached, a
// lexical search is answered by the Redis engine instead (lexical search always works); a
// semantic one fails with `unavailable`.
import type { RoomRef } from '../../store/keys.js'
import { MeilisearchApiError, type Hit } from 'meilisearch'
import type { SearchSettings } from '../settings.js'
import { AppError } from '../../shared/errors.js'
import type { Caller } from '../../core/fields.js'
import { callOptions } from '../../core/records.js'
import { iso } from '../../shared/time.js'
import type { Store } from '../../store/store.js'
import {
  parseSearch,
  refOf,
  roundScore,
  semanticDisabled,
  type SearchAnswer,
  type SearchEngine,
  type SearchHit,
  type SearchKind,
  type SearchStatus,
  type ValidSearch,
} from '../engine.js'
import type { RedisSearchEngine } from '../redis/engine.js'
import { ELLIPSIS, MARK_CLOSE, MARK_OPEN } from '../text.js'
import { Indexer, type IndexerOptions } from '../indexer.js'
import { EMBEDDER, MeiliSink, embedderOf, roomFilter, type MeiliDoc } from './sink.js'

/** The answer's `field` for Meilisearch's `body`, by kind. */
const BODY_FIELD: Record<SearchKind, string> = { task: 'notes', context: 'body', event: 'text' }
/** Words around the match in a snippet (Meilisearch crops by words). */
const CROP_WORDS = 28

export class MeiliSearchEngine implements SearchEngine {
  readonly name = 'meilisearch'
  readonly semanticEnabled: boolean
  readonly sink: MeiliSink
  readonly indexer: Indexer

  constructor(
    private readonly store: Store,
    private readonly settings: SearchSettings,
    /** Answers lexical searches while Meilisearch is unreachable. */
    private readonly fallback: RedisSearchEngine,
    indexerOptions: IndexerOptions = {},
  ) {
    this.sink = new MeiliSink(settings)
    this.indexer = new Indexer(store, this.sink, settings, indexerOptions)
    this.semanticEnabled = embedderOf(settings) !== undefined
  }

  status(): SearchStatus {
    const model = this.settings.meiliEmbedderModel
    return {
      engine: 'meilisearch',
      semantic: this.semanticEnabled,
      ...(this.semanticEnabled && model ? { model } : {}),
    }
  }

  async start(): Promise<void> {
    await this.fallback.start()
    this.store.onCommitted((c) => this.indexer.onCommitted(c))
    // Settings are applied before the first sync; an unreachable Meilisearch is retried by the indexer.
    await this.sink.ensureIndex().catch(() => undefined)
    this.indexer.start()
  }

  async stop(): Promise<void> {
    await this.indexer.stop()
    await this.fallback.stop()
  }

  async dropTeam(teamId: string): Promise<void> {
    try {
      await this.sink.dropTeam(teamId)
    } catch (err) {
      if (!unreachable(err)) throw err
      throw new AppError(
        'unavailable',
        "the search index (Meilisearch) is unreachable, so the team's documents cannot be removed: nothing " +
          'was deleted; try again shortly',
      )
    }
  }
  async dropRoom(ref: RoomRef): Promise<void> {
    try {
      await this.sink.dropRoom(ref)
    } catch (err) {
      if (!unreachable(err)) throw err
      throw new AppError(
        'unavailable',
        "the search index (Meilisearch) is unreachable, so the room's documents cannot be removed: nothing " +
          'was deleted; try again shortly',
      )
    }
  }

  async search(caller: Caller, input: unknown): Promise<SearchAnswer> {
    const q = parseSearch(input)
    if (q.semantic && !this.semanticEnabled) throw semanticDisabled('meilisearch')
    const r = await this.fallback.reader.pick(caller.room, callOptions(caller), {})
    const behind = r.indexedRoom !== String(r.createdAt) || r.indexedPos !== String(r.cseq)
    if (behind)
      void this.indexer.mark(caller.room).then(
        () => this.indexer.kick(),
        () => undefined,
      )
    let hits: Hit<MeiliDoc>[]
    try {
      hits = await this.query(caller, q)
    } catch (err) {
      if (!unreachable(err)) throw err
      if (q.semantic)
        throw new AppError(
          'unavailable',
          'semantic search: Meilisearch is unreachable; retry shortly, or search without semantic: true',
          { field: 'semantic' },
        )
      const answer = await this.fallback.search(caller, { ...q, semantic: false })
      return { ...answer, note: 'Meilisearch is unreachable: answered by the Redis search engine' }
    }
    const answer: SearchAnswer = {
      results: hits.map((h) => (q.semantic ? withSignal(h, hitOf(h)) : hitOf(h))),
      engine: 'meilisearch',
      semantic: q.semantic,
    }
    if (behind) answer.note = 'recent changes of this room are still being indexed and may be missing'
    if (r.unread !== undefined) answer.unread = r.unread
    return answer
  }

  private async query(caller: Caller, q: ValidSearch): Promise<Hit<MeiliDoc>[]> {
    const filter = [roomFilter(caller.room)]
    if (q.kinds) filter.push(`kind IN [${q.kinds.join(', ')}]`)
    const res = await this.sink.index.search<MeiliDoc>(q.query, {
      filter: filter.join(' AND '),
      limit: q.limit,
      attributesToRetrieve: [
        'kind',
        'rid',
        'title',
        'type',
        'key',
        'status',
        'version',
        'event_type',
        'agent_id',
        'at',
      ],
      attributesToHighlight: ['title', 'key', 'type', 'body'],
      attributesToCrop: ['body'],
      cropLength: CROP_WORDS,
      cropMarker: ELLIPSIS,
      highlightPreTag: MARK_OPEN,
      highlightPostTag: MARK_CLOSE,
      showMatchesPosition: true,
      showRankingScore: true,
      ...(q.semantic ? { hybrid: { embedder: EMBEDDER, semanticRatio: this.settings.searchSemanticRatio } } : {}),
    })
    return res.hits
  }
}

function unreachable(err: unknown): boolean {
  if (err instanceof MeilisearchApiError) return err.response.status >= 500
  return (
    err instanceof Error &&
    /Meilisearch.*(Request|TimeOut)|fetch failed|ECONNREFUSED/i.test(`${err.name} ${err.message}`)
  )
}

/**
 * A Meilisearch hit in the answer's shape: the snippet is the cropped body when it matched, else
 * the field that did.
 */
export function hitOf(h: Hit<MeiliDoc>): SearchHit {
  const kind = h.kind as SearchKind
  const matchedIn = Object.keys(h._matchesPosition ?? {})
  const formatted = (h._formatted ?? {}) as Partial<Record<keyof MeiliDoc, unknown>>
  const source = matchedIn.includes('body')
    ? 'body'
    : ((['title', 'key', 'type'] as const).find((f) => matchedIn.includes(f)) ?? (kind === 'task' ? 'title' : 'body'))
  const hit: SearchHit = {
    ref: refOf(kind, h.rid),
    kind,
    id: h.rid,
    at: iso(h.at),
    field: source === 'body' ? BODY_FIELD[kind] : source,
    snippet: String(formatted[source] ?? ''),
    score: roundScore(h._rankingScore ?? 0),
  }
  if (kind === 'task') {
    if (h.title !== undefined) hit.title = h.title
    if (h.status !== undefined) hit.status = h.status
  } else if (kind === 'context') {
    if (h.type !== undefined) hit.type = h.type
    if (h.key !== undefined) hit.key = h.key
    if (h.version !== undefined) hit.version = h.version
  } else {
    if (h.event_type !== undefined) hit.type = h.event_type
    if (h.agent_id !== undefined) hit.agent_id = h.agent_id
  }
  return orderedHit(hit)
}

/**
 * A hybrid hit says which signal found it, as the Redis engine's do: words matched
 * (`_matchesPosition`), a semantic score (`_semanticScore`, which Meilisearch's hybrid search
 * gives the hits its vectors found), or both.
 */
function withSignal(h: Hit<MeiliDoc>, hit: SearchHit): SearchHit {
  const words = Object.keys(h._matchesPosition ?? {}).length > 0
  const semantic = typeof (h as { _semanticScore?: unknown })._semanticScore === 'number'
  return { ...hit, match: words && semantic ? 'both' : words ? 'lexical' : 'semantic' }
}

/** Field order as the Redis engine gives it, so answers read alike. */
function orderedHit(h: SearchHit): SearchHit {
  const order = [
    'ref',
    'kind',
    'id',
    'title',
    'status',
    'type',
    'key',
    'version',
    'agent_id',
    'at',
    'field',
    'snippet',
    'score',
  ] as const
  const out: Record<string, unknown> = {}
  for (const k of order) if (h[k] !== undefined) out[k] = h[k]
  return out as SearchHit
}
