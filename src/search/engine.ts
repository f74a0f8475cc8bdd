// The search contract: one interface, two engines (redis/engine.ts, the default with no extra
// server; meili/engine.ts when MEILI_URL is set), one input schema and one answer shape, so the
// MCP tool and the HTTP route say the same whichever engine answers. Both engines pass the same
// conformance suite (test/helpers/search-conformance.ts).
import type { RoomRef } from '../store/keys.js'
import { z } from 'zod'
import { AppError } from '../shared/errors.js'
import type { Caller } from '../core/fields.js'
import { parse } from '../shared/validate.js'

export const SEARCH_KINDS = ['task', 'context', 'event'] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]
export const DEFAULT_LIMIT = 10
export const MAX_LIMIT = 50
export const MAX_QUERY_CHARS = 500

export interface SearchInput {
  query: string
  kinds?: SearchKind[]
  limit?: number
  semantic?: boolean
}

export const searchSchema = z.object({
  query: z
    .string()
    .max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`)
    .refine((q) => /[\p{L}\p{N}]/u.test(q), { message: 'must contain a word (letters or digits)' }),
  kinds: z.array(z.enum(SEARCH_KINDS)).min(1, 'must name at least one kind: task, context, event').optional(),
  limit: z
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`)
    .default(DEFAULT_LIMIT),
  semantic: z.boolean().default(false),
})
export type ValidSearch = z.output<typeof searchSchema>

/** Validates search input, naming the bad field. */
export function parseSearch(input: unknown): ValidSearch {
  return parse(searchSchema, input)
}

/**
 * One result. `ref` names the record as other tools take it ("task t7", "context spec/api",
 * "event 1732263097123-42"); `field` is where `snippet` comes from; matched words in the snippet
 * are wrapped in ** **. `score` is 0-1, higher is better, comparable within one answer only.
 */
export type SearchHit = {
  ref: string
  kind: SearchKind
  id: string
  /** task: its title. */
  title?: string
  /** task: its status. */
  status?: string
  /** context: its type; event: its type. */
  type?: string
  /** context: its key. */
  key?: string
  /** context: its current version. */
  version?: number
  /** event: who posted it. */
  agent_id?: string
  /** task, context: last update; event: when posted (ISO 8601). */
  at: string
  field: string
  snippet: string
  score: number
  /**
   * Redis engine: the query words (folded) it has, exactly or as a prefix, when it has some but not
   * all of them; absent when it has them all, or was found by its meaning alone.
   */
  words?: string[]
  /** Semantic searches: which ranking found it, by its words, by its meaning (vectors), or both. */
  match?: 'lexical' | 'semantic' | 'both'
  /** Semantic searches: cosine similarity of its vector to the query's, when the vectors found it. */
  similarity?: number
}

export type SearchAnswer = {
  results: SearchHit[]
  /** Which engine answered: redis or meilisearch. */
  engine: 'redis' | 'meilisearch'
  semantic: boolean
  /** Set when the answer may miss the latest changes, with why (e.g. indexing in progress). */
  note?: string
  /** The caller's unread count, as on every room tool result. */
  unread?: number
}

/** What a node tells of its search (GET /admin/me, get_room_info). */
export interface SearchStatus {
  engine: 'redis' | 'meilisearch'
  /** Whether `semantic: true` is served. */
  semantic: boolean
  /** The embedding model, when semantic search is on. */
  model?: string
  /** Redis engine: where vectors are searched, in Redis vector sets or in process. */
  vectors?: 'vector sets' | 'in process'
}

export interface SearchEngine {
  readonly name: 'redis' | 'meilisearch'
  /** Whether `semantic: true` can be served. */
  readonly semanticEnabled: boolean
  status(): SearchStatus
  /** Searches the caller's room. Throws AppError (not_found for a room that is gone). */
  search(caller: Caller, input: unknown): Promise<SearchAnswer>
  start(): Promise<void>
  stop(): Promise<void>
  /**
   * Removes what the engine keeps outside Redis for a team whose account is being deleted (the
   * Meilisearch engine's documents); engines that keep everything in Redis have no such method
   * (the team's purge removes their keys). Throws `unavailable` when that store is unreachable.
   */
  dropTeam?(teamId: string): Promise<void>
  /** The same for one room that is being deleted (the Redis engine's documents go with the room's keys). */
  dropRoom?(ref: RoomRef): Promise<void>
}

/** The settings that turn semantic search on, by engine. */
export const SEMANTIC_SETTINGS = {
  redis: ['EMBEDDER_URL', 'EMBEDDER_MODEL'],
  meilisearch: ['MEILI_EMBEDDER_SOURCE'],
} as const

/** What a caller is told when semantic search is asked for but not configured. */
export function semanticDisabled(engine: 'redis' | 'meilisearch'): AppError {
  const how =
    engine === 'redis'
      ? 'setting EMBEDDER_URL and EMBEDDER_MODEL (an OpenAI-compatible embeddings API such as Ollama or OpenAI)'
      : 'setting MEILI_EMBEDDER_SOURCE (the Meilisearch embedder)'
  return new AppError(
    'semantic_search_disabled',
    `semantic: semantic search is not enabled on this service; an operator enables it by ${how}. Search ` +
      `again without semantic: true for lexical search.`,
    { field: 'semantic', settings: [...SEMANTIC_SETTINGS[engine]] },
  )
}

/** The record reference other tools understand. */
export function refOf(kind: SearchKind, id: string): string {
  return `${kind} ${id}`
}

/** Rounds a score for the answer (agents pay for every digit). */
export function roundScore(s: number): number {
  return Math.round(s * 1000) / 1000
}
