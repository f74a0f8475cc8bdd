// The search evaluation: the labelled room of test/fixtures/search-quality.ts indexed as the Redis
// engine indexes it (LexicalIndex, the text it embeds, Q8 vectors), every query ranked lexically,
// by its nearest vectors and fused, and each ranking scored with nDCG@10 and MRR@10, overall and
// per slice. Used by bench/search-quality.ts and test/unit/search-quality.test.ts.
import { LexicalIndex, type Answer, type IndexDoc } from '../../src/search/lexical.js'
import type { HitBase } from '../../src/search/records.js'
import { CANDIDATES, rankHybrid } from '../../src/search/redis/hybrid.js'
import { words } from '../../src/search/text.js'
import { cosine, quantize, type Quantized } from '../../src/search/vectors/codec.js'
import { embedText } from '../../src/search/vectors/sink.js'
import { CONTEXT, EVENTS, QUERIES, SLICES, TASKS, type LabelledQuery, type Slice } from '../fixtures/search-quality.js'
import { qualityVector } from './quality-embedder.js'

/** What an answer shows: the first TOP_K results. */
export const TOP_K = 10
/** The share of the vectors in the fusion (SEARCH_SEMANTIC_RATIO's default). */
export const DEFAULT_RATIO = 0.5

export interface Near {
  key: string
  cosine: number
}
/** A ranking: the record keys best first, from the query's lexical answer and nearest vectors. */
export type Ranker = (query: string, lexical: Answer<HitBase>, near: readonly Near[]) => string[]

export const RANKERS: Readonly<Record<'lexical' | 'semantic' | 'hybrid', Ranker>> = {
  lexical: (_q, lexical) => lexical.hits.map((h) => h.doc.key),
  semantic: (_q, _l, near) => near.map((n) => n.key),
  hybrid: (query, lexical, near) => rankHybrid(query, lexical, near, DEFAULT_RATIO).map((f) => f.key),
}

export interface Room {
  index: LexicalIndex<HitBase>
  vectors: Map<string, Quantized>
}

const AT = '2026-12-01T00:00:00.000Z'

/** The fixture's records as the engine's documents. */
export function qualityDocs(): IndexDoc<HitBase>[] {
  const docs: IndexDoc<HitBase>[] = []
  const push = (kind: 'task' | 'context' | 'event', id: string, fields: IndexDoc<HitBase>['fields'], m: object) =>
    docs.push({
      key: `${kind}:${id}`,
      kind,
      at: docs.length,
      fields,
      meta: { ref: `${kind} ${id}`, kind, id, at: AT, ...m },
    })
  for (const [id, title, notes] of TASKS) push('task', id, { title, notes }, { title, status: 'todo' })
  for (const [type, key, body] of CONTEXT) push('context', `${type}/${key}`, { type, key, body }, { type, key })
  for (const [id, text] of EVENTS) push('event', id, { text }, { type: 'message', agent_id: 'dev' })
  return docs
}

function embed(text: string): Quantized {
  return quantize(qualityVector(words(text)))!
}

export function qualityRoom(): Room {
  const index = new LexicalIndex<HitBase>()
  const vectors = new Map<string, Quantized>()
  for (const doc of qualityDocs()) {
    index.upsert(doc)
    vectors.set(doc.key, embed(embedText(doc, 2000)))
  }
  return { index, vectors }
}

/** The query's nearest CANDIDATES records, best first (ties by key), as the engine fetches them. */
export function nearest(room: Room, query: string): Near[] {
  const qv = embed(query)
  return [...room.vectors]
    .map(([key, v]) => ({ key, cosine: cosine(qv, v) }))
    .sort((a, b) => b.cosine - a.cosine || (a.key < b.key ? -1 : 1))
    .slice(0, CANDIDATES)
}

/** nDCG@TOP_K with gains 2^grade - 1. */
export function ndcg(ranked: readonly string[], relevant: Readonly<Record<string, number>>): number {
  const gain = (g: number) => 2 ** g - 1
  let dcg = 0
  ranked.slice(0, TOP_K).forEach((k, i) => (dcg += gain(relevant[k] ?? 0) / Math.log2(i + 2)))
  let ideal = 0
  Object.values(relevant)
    .sort((a, b) => b - a)
    .slice(0, TOP_K)
    .forEach((g, i) => (ideal += gain(g) / Math.log2(i + 2)))
  return ideal > 0 ? dcg / ideal : 0
}

/** Reciprocal rank of the first relevant record (any grade) in the first TOP_K, else 0. */
export function reciprocalRank(ranked: readonly string[], relevant: Readonly<Record<string, number>>): number {
  const i = ranked.slice(0, TOP_K).findIndex((k) => (relevant[k] ?? 0) > 0)
  return i < 0 ? 0 : 1 / (i + 1)
}

export interface Scores {
  ndcg: number
  mrr: number
  queries: number
}
export type Report = Record<Slice | 'all', Scores>

/** Each ranker's nDCG@10 and MRR@10, overall and per slice (means over the queries). */
export function evaluate<R extends string>(
  rankers: Readonly<Record<R, Ranker>>,
  queries: readonly LabelledQuery[] = QUERIES,
): Record<R, Report> {
  const room = qualityRoom()
  const out = {} as Record<R, Report>
  const empty = (): Report =>
    Object.fromEntries(['all', ...SLICES].map((s) => [s, { ndcg: 0, mrr: 0, queries: 0 }])) as Report
  for (const name of Object.keys(rankers) as R[]) out[name] = empty()
  for (const lq of queries) {
    const lexical = room.index.search(lq.query, Math.max(TOP_K, CANDIDATES))
    const near = nearest(room, lq.query)
    for (const name of Object.keys(rankers) as R[]) {
      const ranked = rankers[name](lq.query, lexical, near)
      for (const s of [out[name].all, out[name][lq.slice]]) {
        s.ndcg += ndcg(ranked, lq.relevant)
        s.mrr += reciprocalRank(ranked, lq.relevant)
        s.queries++
      }
    }
  }
  for (const report of Object.values<Report>(out))
    for (const s of Object.values(report)) {
      s.ndcg /= s.queries || 1
      s.mrr /= s.queries || 1
    }
  return out
}
