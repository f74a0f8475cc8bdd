// An in-memory inverted index of one room, ranked with BM25F: per-field term frequencies, each
// field normalised by its own average length and weighted (a task's title over its notes, a
// context entry's key over its body), saturated once per query word, times the word's IDF. The
// last query word also matches as a prefix, below an exact match: a document counts only its
// best single completion, saturated apart and at PREFIX_WEIGHT, so "deployment deployments
// deployed" cannot add up past "we deploy" for "deploy". Words are folded (text.ts).
//
// Written for bounded, predictable cost rather than taken from a library: on a room with the
// limits' record counts and 8 MB of text, MiniSearch 7.2 needed 3.6 s to build and 47 ms at p99
// per query (BENCHMARKS.md, Search). Here postings are flat Int32Arrays of (slot, field, tf) triples,
// a removal only marks its slot dead (compaction rewrites the postings once dead entries make up
// half of them), and a prefix expands to at most MAX_EXPANSIONS words, so a query costs at most the
// postings of (words + MAX_EXPANSIONS) terms.
import { eachWord, flat, words } from './text.js'
import { TopK } from './topk.js'

export const FIELDS = ['title', 'notes', 'type', 'key', 'body', 'text'] as const
export type Field = (typeof FIELDS)[number]
/** BM25F field weights: a task's title over its notes, a context entry's key over its type and body. */
export const FIELD_WEIGHTS: Readonly<Record<Field, number>> = { title: 3, notes: 1, type: 2, key: 3, body: 1, text: 1 }
/** Long fields: a snippet is taken from one of these first, the short ones are shown whole. */
export const LONG_FIELDS: readonly Field[] = ['notes', 'body', 'text']

const K1 = 1.2
const B = 0.75
/**
 * A word matched as a prefix counts this much of an exact match (after saturation, so never more
 * than an exact hit's saturation cap at this share).
 */
export const PREFIX_WEIGHT = 0.5
/**
 * The last query word matches as a prefix only from this many characters (code points): a
 * shorter one completes to too many unrelated words for the match to mean anything.
 */
export const MIN_PREFIX = 3
/**
 * Function words never matched as a prefix (they are matched whole, where IDF weighs them little):
 * a query that ends "… when signing in" or "… for the" has finished its last word.
 */
export const PREFIX_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and any are as at be but by can did do does for from had has have how if in into is it its ' +
    'may no nor not of off on onto or our out per so than that the their them then there these they ' +
    'this those to too up us via was we were what when where which while who why will with you your'
  ).split(' '),
)

/** Whether the last query word `word` (folded) also matches as a prefix. */
export function prefixable(word: string): boolean {
  return Array.from(word).length >= MIN_PREFIX && !PREFIX_STOP_WORDS.has(word)
}

/** Most words one prefix expands to (the most frequent ones). */
export const MAX_EXPANSIONS = 50
/** Query words beyond this many are ignored. */
export const MAX_QUERY_WORDS = 12

const FIELD_ID = new Map<Field, number>(FIELDS.map((f, i) => [f, i]))
const WEIGHT = FIELDS.map((f) => FIELD_WEIGHTS[f])

export interface IndexDoc<M> {
  /** Unique within the index, e.g. "task:t7". */
  key: string
  /** Filters (kinds). */
  kind: string
  /** Newer first among equal scores (ms). */
  at: number
  fields: Partial<Record<Field, string>>
  /** Carried through to hits untouched. */
  meta: M
}

export interface Hit<M> {
  doc: IndexDoc<M>
  score: number
  /** The fields a query word matched in: bit i = FIELDS[i]. */
  fields: number
  /** Query words the document has as whole words (not only as a prefix). */
  exact: number
  /**
   * How much of the query the document matches, 0-1: the IDF of the query words it has over the IDF
   * of all of them (a word matched only as a prefix counts PREFIX_WEIGHT of its IDF). A word no
   * record has weighs the most, so matching only the common words of a query is a weak match.
   */
  coverage: number
  /** The query words it matched, exact or as a prefix: bit i = Answer.terms[i]. */
  words: number
}

export interface Answer<M> {
  hits: Hit<M>[]
  /** Every indexed word the query matched (exact and prefix expansions), for highlighting. */
  matched: Set<string>
  /** Query words ranked (distinct, at most MAX_QUERY_WORDS): a hit with `exact` equal to it has them all. */
  words: number
  /** Those words, folded, in query order. */
  terms: string[]
}

interface Slot<M> {
  doc: IndexDoc<M>
  lens: Uint32Array
  triples: number
}

/** A growable array of (slot, field, tf) triples. */
class Postings {
  data = new Int32Array(6)
  n = 0

  push(slot: number, field: number, tf: number): void {
    if (this.n + 3 > this.data.length) {
      const next = new Int32Array(this.data.length * 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.n++] = slot
    this.data[this.n++] = field
    this.data[this.n++] = tf
  }
}

function lowerBound(list: readonly string[], s: string): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid]! < s) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class LexicalIndex<M> {
  private slots: (Slot<M> | undefined)[] = []
  private readonly byKey = new Map<string, number>()
  private postings = new Map<string, Postings>()
  /** Indexed words, sorted (prefix lookups); words added since the last lookup wait in `fresh`. */
  private vocab: string[] = []
  private fresh: string[] = []
  private readonly lenSum = new Float64Array(FIELDS.length)
  private readonly withField = new Float64Array(FIELDS.length)
  private liveTriples = 0
  private deadTriples = 0
  // Scratch of search(), one entry per slot, zero between searches (a search is synchronous).
  private acc = new Float64Array(0)
  private best = new Float64Array(0)
  private cur = new Float64Array(0)
  private score = new Float64Array(0)
  private count = new Uint8Array(0)
  private exact = new Uint8Array(0)
  private cover = new Float64Array(0)
  private wmask = new Uint16Array(0)
  private mask = new Uint8Array(0)
  /** UTF-16 length of the indexed text (what the node keeps in memory for snippets). */
  textLength = 0

  get size(): number {
    return this.byKey.size
  }

  has(key: string): boolean {
    return this.byKey.has(key)
  }

  /** The document of `key`, if indexed. */
  doc(key: string): IndexDoc<M> | undefined {
    const slot = this.byKey.get(key)
    return slot === undefined ? undefined : this.slots[slot]?.doc
  }

  /** Adds a document, replacing the one with the same key. */
  upsert(doc: IndexDoc<M>): void {
    this.remove(doc.key)
    const slot = this.slots.length
    const lens = new Uint32Array(FIELDS.length)
    const tf = new Map<string, number>()
    let triples = 0
    for (const [name, text] of Object.entries(doc.fields) as [Field, string | undefined][]) {
      const f = FIELD_ID.get(name)
      if (f === undefined || !text) continue
      tf.clear()
      let len = 0
      eachWord(text, (w) => {
        tf.set(w, (tf.get(w) ?? 0) + 1)
        len++
      })
      if (len === 0) continue
      lens[f] = len
      this.lenSum[f]! += len
      this.withField[f]! += 1
      this.textLength += text.length
      for (const [w, n] of tf) {
        let p = this.postings.get(w)
        if (!p) {
          // A new term outlives the text it came from (it stays a key after the document goes):
          // keep a copy of its own, not a slice that would keep the whole text alive.
          const term = flat(w)
          p = new Postings()
          this.postings.set(term, p)
          this.fresh.push(term)
        }
        p.push(slot, f, n)
        triples++
      }
    }
    this.slots.push({ doc, lens, triples })
    this.byKey.set(doc.key, slot)
    this.liveTriples += triples
  }

  /** Removes a document (its postings are dropped at the next compaction). */
  remove(key: string): boolean {
    const slot = this.byKey.get(key)
    if (slot === undefined) return false
    const s = this.slots[slot]!
    this.byKey.delete(key)
    this.slots[slot] = undefined
    for (let f = 0; f < FIELDS.length; f++) {
      if (s.lens[f]! === 0) continue
      this.lenSum[f]! -= s.lens[f]!
      this.withField[f]! -= 1
      this.textLength -= s.doc.fields[FIELDS[f]!]?.length ?? 0
    }
    this.liveTriples -= s.triples
    this.deadTriples += s.triples
    if (this.deadTriples > 1024 && this.deadTriples > this.liveTriples) this.compact()
    return true
  }

  /**
   * Best `limit` documents for `query` among `kinds` (all when undefined). Every query word must
   * match for a document to rank first: the score is multiplied by the share of words matched.
   */
  search(query: string, limit: number, kinds?: ReadonlySet<string>): Answer<M> {
    const qwords = [...new Set(words(query))].slice(0, MAX_QUERY_WORDS)
    const matched = new Set<string>()
    if (qwords.length === 0 || this.byKey.size === 0) return { hits: [], matched, words: qwords.length, terms: qwords }
    // The last word is typed in part unless the query ends with a separator ("auth " is complete).
    const prefixLast = /[\p{L}\p{N}\p{M}]$/u.test(query)
    const live = this.byKey.size
    const avg = FIELDS.map((_, f) => (this.withField[f]! > 0 ? this.lenSum[f]! / this.withField[f]! : 1))
    this.ensureScratch()
    const { acc, best, cur, score, count, exact, cover, wmask, mask } = this
    let idfSum = 0
    const all: number[] = []
    const touched: number[] = []
    const inTerm: number[] = []
    /** Adds one term's weighted, length-normalised frequencies to `into`, per document. */
    const add = (term: string, into: Float64Array, seen: number[]): boolean => {
      const p = this.postings.get(term)
      if (!p) return false
      const data = p.data
      let hit = false
      for (let j = 0; j < p.n; j += 3) {
        const slot = data[j]!
        const s = this.slots[slot]
        if (!s) continue
        const f = data[j + 1]!
        if (acc[slot] === 0 && best[slot] === 0 && cur[slot] === 0) touched.push(slot)
        if (into[slot] === 0) seen.push(slot)
        into[slot]! += (WEIGHT[f]! * data[j + 2]!) / (1 - B + (B * s.lens[f]!) / avg[f]!)
        mask[slot]! |= 1 << f
        hit = true
      }
      return hit
    }
    const saturate = (a: number) => (a * (K1 + 1)) / (K1 + a)
    qwords.forEach((word, i) => {
      touched.length = 0
      if (add(word, acc, [])) matched.add(word)
      if (prefixLast && i === qwords.length - 1 && prefixable(word)) {
        // Completions are not summed: a document counts its best one (see the header).
        for (const term of this.completions(word)) {
          inTerm.length = 0
          if (add(term, cur, inTerm)) matched.add(term)
          for (const slot of inTerm) {
            if (cur[slot]! > best[slot]!) best[slot] = cur[slot]!
            cur[slot] = 0
          }
        }
      }
      const df = touched.length
      const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5))
      idfSum += idf
      for (const slot of touched) {
        const w = Math.max(saturate(acc[slot]!), PREFIX_WEIGHT * saturate(best[slot]!))
        if (acc[slot]! > 0) exact[slot]! += 1
        cover[slot]! += acc[slot]! > 0 ? idf : PREFIX_WEIGHT * idf
        wmask[slot]! |= 1 << i
        acc[slot] = 0
        best[slot] = 0
        if (count[slot] === 0) all.push(slot)
        score[slot]! += idf * w
        count[slot]! += 1
      }
    })
    const top = new TopK<Hit<M>>(limit, better)
    for (const slot of all) {
      const doc = this.slots[slot]!.doc
      if (!kinds || kinds.has(doc.kind))
        top.offer({
          doc,
          score: (score[slot]! * count[slot]!) / qwords.length,
          fields: mask[slot]!,
          exact: exact[slot]!,
          coverage: idfSum > 0 ? Math.min(1, cover[slot]! / idfSum) : 0,
          words: wmask[slot]!,
        })
      score[slot] = 0
      count[slot] = 0
      exact[slot] = 0
      cover[slot] = 0
      wmask[slot] = 0
      mask[slot] = 0
    }
    return { hits: top.sorted(), matched, words: qwords.length, terms: qwords }
  }

  private ensureScratch(): void {
    const n = this.slots.length
    if (this.acc.length >= n) return
    const size = Math.max(1024, n * 2)
    this.acc = new Float64Array(size)
    this.best = new Float64Array(size)
    this.cur = new Float64Array(size)
    this.score = new Float64Array(size)
    this.count = new Uint8Array(size)
    this.exact = new Uint8Array(size)
    this.cover = new Float64Array(size)
    this.wmask = new Uint16Array(size)
    this.mask = new Uint8Array(size)
  }

  /** The indexed words that `word` is a proper prefix of: at most MAX_EXPANSIONS, the most frequent. */
  private completions(word: string): string[] {
    this.settleVocab()
    const from = lowerBound(this.vocab, word)
    const out: string[] = []
    for (let i = from; i < this.vocab.length; i++) {
      const w = this.vocab[i]!
      if (!w.startsWith(word)) break
      if (w !== word) out.push(w)
    }
    if (out.length > MAX_EXPANSIONS) {
      out.sort((a, b) => this.postings.get(b)!.n - this.postings.get(a)!.n || (a < b ? -1 : 1))
      out.length = MAX_EXPANSIONS
    }
    return out
  }

  /** Merges the words added since the last prefix lookup into the sorted vocabulary. */
  private settleVocab(): void {
    if (this.fresh.length === 0) return
    const add = this.fresh.sort()
    this.fresh = []
    const out: string[] = new Array(this.vocab.length + add.length)
    let i = 0
    let j = 0
    let k = 0
    while (i < this.vocab.length && j < add.length) out[k++] = this.vocab[i]! < add[j]! ? this.vocab[i++]! : add[j++]!
    while (i < this.vocab.length) out[k++] = this.vocab[i++]!
    while (j < add.length) out[k++] = add[j++]!
    this.vocab = out
  }

  /** Drops dead slots and their postings, renumbering the live ones. */
  private compact(): void {
    const renumber = new Int32Array(this.slots.length).fill(-1)
    const slots: Slot<M>[] = []
    this.slots.forEach((s, i) => {
      if (!s) return
      renumber[i] = slots.length
      slots.push(s)
    })
    const postings = new Map<string, Postings>()
    for (const [w, p] of this.postings) {
      const q = new Postings()
      for (let j = 0; j < p.n; j += 3) {
        const to = renumber[p.data[j]!]!
        if (to >= 0) q.push(to, p.data[j + 1]!, p.data[j + 2]!)
      }
      if (q.n > 0) postings.set(w, q)
    }
    this.slots = slots
    this.postings = postings
    this.byKey.clear()
    slots.forEach((s, i) => this.byKey.set(s.doc.key, i))
    this.vocab = [...postings.keys()].sort()
    this.fresh = []
    this.deadTriples = 0
  }
}

/** Ranking order: higher score, then newer, then key. */
function better<M>(a: Hit<M>, b: Hit<M>): boolean {
  if (a.score !== b.score) return a.score > b.score
  if (a.doc.at !== b.doc.at) return a.doc.at > b.doc.at
  return a.doc.key < b.doc.key
}
