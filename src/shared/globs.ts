// File globs of reservations (docs/agents.md "Reservations"): parsing, matching a path, and
// deciding whether two globs can match a common path. A leaf module: the core decides overlap
// with it, and the CLI's commit guard can match paths with it.
//
// The language, over repository-relative paths as git prints them (segments joined by "/", no
// leading "/", no empty, "." or ".." segment):
//   *        any run of characters within one segment (also empty; dot files included)
//   ?        one character other than "/"
//   [abc]    one character of a class: ranges (a-z), negation with "!" or "^" first, "]" first
//            is literal; a class never matches "/"
//   **       as a whole segment: any number of segments (`a/**/b` matches a/b and a/x/y/b); as the
//            last segment, at least one (`src/**` matches everything under src, not src itself)
//   \x       the character x itself
// Braces ({a,b}) are not part of it: each alternative is its own pattern.
//
// Overlap is decided exactly: each glob compiles to a small automaton over characters, and two
// globs overlap when the product of both automata and a third one that accepts only well-formed
// paths accepts some string. The search also yields a witness path that both globs match.

/** A set of code points: `ranges` itself, or (neg) every code point outside it. */
interface CharSet {
  readonly neg: boolean
  /** Sorted, non-overlapping, inclusive [lo, hi] pairs. */
  readonly ranges: readonly (readonly [number, number])[]
}

const SLASH = 0x2f
const ONLY_SLASH: CharSet = { neg: false, ranges: [[SLASH, SLASH]] }
const NOT_SLASH: CharSet = { neg: true, ranges: [[SLASH, SLASH]] }
const ANY: CharSet = { neg: true, ranges: [] }

/** The longest pattern accepted, in characters. */
export const GLOB_MAX_LENGTH = 512

export class GlobError extends Error {}

function normalize(ranges: [number, number][]): [number, number][] {
  const sorted = ranges.slice().sort((a, b) => a[0] - b[0])
  const out: [number, number][] = []
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1]
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi)
    else out.push([lo, hi])
  }
  return out
}

/** Positive ranges minus `minus` (both normalized). */
function subtract(ranges: readonly (readonly [number, number])[], minus: readonly (readonly [number, number])[]) {
  const out: [number, number][] = []
  for (const [lo0, hi] of ranges) {
    let lo = lo0
    for (const [mlo, mhi] of minus) {
      if (mhi < lo || mlo > hi) continue
      if (mlo > lo) out.push([lo, mlo - 1])
      lo = Math.max(lo, mhi + 1)
      if (lo > hi) break
    }
    if (lo <= hi) out.push([lo, hi])
  }
  return out
}

function intersectRanges(a: readonly (readonly [number, number])[], b: readonly (readonly [number, number])[]) {
  const out: [number, number][] = []
  for (const [alo, ahi] of a)
    for (const [blo, bhi] of b) {
      const lo = Math.max(alo, blo)
      const hi = Math.min(ahi, bhi)
      if (lo <= hi) out.push([lo, hi])
    }
  return normalize(out)
}

/** The intersection of two sets, or null when it is empty (the alphabet is unbounded: a negated set is never empty). */
function meet(a: CharSet, b: CharSet): CharSet | null {
  let r: CharSet
  if (!a.neg && !b.neg) r = { neg: false, ranges: intersectRanges(a.ranges, b.ranges) }
  else if (!a.neg) r = { neg: false, ranges: subtract(a.ranges, b.ranges) }
  else if (!b.neg) r = { neg: false, ranges: subtract(b.ranges, a.ranges) }
  else return { neg: true, ranges: normalize([...a.ranges, ...b.ranges].map(([l, h]) => [l, h])) }
  return r.ranges.length === 0 ? null : r
}

/** A character of a non-empty set, readable where possible (a witness path is shown to people). */
function pick(s: CharSet): string {
  if (!s.neg) return String.fromCodePoint(s.ranges[0]![0])
  for (const c of 'xabcdefghijklmnopqrstuvwyz0123456789_-.') {
    const cp = c.codePointAt(0)!
    if (!s.ranges.some(([lo, hi]) => cp >= lo && cp <= hi)) return c
  }
  let cp = 0x100
  for (const [lo, hi] of s.ranges) if (cp >= lo && cp <= hi) cp = hi + 1
  return String.fromCodePoint(cp)
}

/** A state of a glob's automaton: epsilon moves and character moves. */
interface State {
  eps: number[]
  edges: { set: CharSet; to: number }[]
  /** The states reachable by epsilon moves, this one included (filled in by compile). */
  close: number[]
}

/** A parsed glob: its automaton (accepting state = the last) and the literal text every match starts with. */
export interface Glob {
  readonly source: string
  readonly states: readonly State[]
  readonly prefix: string
}

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/

function fail(pattern: string, why: string): never {
  throw new GlobError(`${JSON.stringify(pattern)} is not a valid glob: ${why}`)
}

/** One piece of a glob: a character of a set (`lit` when it is one literal character), or a wildcard. */
type Item = { k: 'set'; set: CharSet; lit?: string } | { k: 'star' } | { k: 'prefix' } | { k: 'tail' }

const one = (c: string): Item => {
  const cp = c.codePointAt(0)!
  return { k: 'set', set: { neg: false, ranges: [[cp, cp]] }, lit: c }
}

/** Parses one segment (not `**`) into items; `at` is the segment's offset, for messages. */
function parseSegment(pattern: string, seg: string, items: Item[]): void {
  const cps = Array.from(seg)
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!
    if (c === '*') {
      if (cps[i + 1] === '*') fail(pattern, '"**" must be a whole segment (use "*" within a segment)')
      items.push({ k: 'star' })
    } else if (c === '?') items.push({ k: 'set', set: NOT_SLASH })
    else if (c === '\\') {
      const next = cps[++i]
      if (next === undefined) fail(pattern, 'it ends with an escape "\\"')
      items.push(one(next))
    } else if (c === '[') {
      let j = i + 1
      let neg = false
      if (cps[j] === '!' || cps[j] === '^') {
        neg = true
        j++
      }
      const ranges: [number, number][] = []
      let first = true
      for (;;) {
        let ch = cps[j]
        if (ch === undefined) fail(pattern, 'a "[" class is not closed with "]"')
        if (ch === ']' && !first) break
        first = false
        if (ch === '\\') {
          ch = cps[++j]
          if (ch === undefined) fail(pattern, 'it ends with an escape "\\"')
        }
        const lo = ch.codePointAt(0)!
        let hi = lo
        if (cps[j + 1] === '-' && cps[j + 2] !== undefined && cps[j + 2] !== ']') {
          let h = cps[j + 2]!
          j += 2
          if (h === '\\') {
            h = cps[++j] ?? fail(pattern, 'it ends with an escape "\\"')
          }
          hi = h.codePointAt(0)!
          if (hi < lo) fail(pattern, `the range "${ch}-${h}" runs backwards`)
        }
        if (lo <= SLASH && SLASH <= hi) fail(pattern, 'a class cannot match "/"')
        ranges.push([lo, hi])
        j++
      }
      i = j
      const set: CharSet = neg
        ? { neg: true, ranges: normalize([...ranges, [SLASH, SLASH]]) }
        : { neg: false, ranges: normalize(ranges) }
      items.push({ k: 'set', set })
    } else items.push(one(c))
  }
}

/** Parses a glob; throws GlobError saying what is wrong. */
export function parseGlob(pattern: string): Glob {
  if (pattern.length === 0) fail(pattern, 'it is empty')
  if (pattern.length > GLOB_MAX_LENGTH) fail(pattern.slice(0, 40) + '…', `longer than ${GLOB_MAX_LENGTH} characters`)
  if (CONTROL.test(pattern)) fail(pattern, 'it contains a control character')
  if (pattern.startsWith('/')) fail(pattern, 'paths are relative to the repository root: drop the leading "/"')
  if (pattern.endsWith('/')) fail(pattern, `it ends with "/"; for everything under a folder write "${pattern}**"`)
  if (/[{}]/.test(pattern.replace(/\\./g, '')))
    fail(pattern, 'braces are not supported; reserve each alternative as its own pattern (or escape "\\{")')
  const segs = pattern.split('/')
  const items: Item[] = []
  segs.forEach((seg, i) => {
    if (seg === '') fail(pattern, 'it has an empty segment ("//")')
    if (seg === '.' || seg === '..') fail(pattern, `it has a "${seg}" segment; write the path from the repository root`)
    const last = i === segs.length - 1
    if (seg === '**') {
      items.push({ k: last ? 'tail' : 'prefix' })
      return
    }
    parseSegment(pattern, seg, items)
    if (!last) items.push(one('/'))
  })
  let prefix = ''
  for (const it of items) {
    if (it.k !== 'set' || it.lit === undefined) break
    prefix += it.lit
  }
  return { source: pattern, states: compile(items), prefix }
}

/** Thompson-style automaton: one or two states per item; the last state accepts. */
function compile(items: Item[]): State[] {
  const states: State[] = [{ eps: [], edges: [], close: [] }]
  const add = (): number => states.push({ eps: [], edges: [], close: [] }) - 1
  let cur = 0
  for (const it of items) {
    if (it.k === 'set') {
      const next = add()
      states[cur]!.edges.push({ set: it.set, to: next })
      cur = next
    } else if (it.k === 'star') {
      // cur loops on any non-"/" and leaves by epsilon.
      states[cur]!.edges.push({ set: NOT_SLASH, to: cur })
      const next = add()
      states[cur]!.eps.push(next)
      cur = next
    } else if (it.k === 'prefix') {
      // (segment "/")*: cur --[^/]--> inSeg --[^/]--> inSeg --"/"--> cur; cur --eps--> next.
      const inSeg = add()
      states[cur]!.edges.push({ set: NOT_SLASH, to: inSeg })
      states[inSeg]!.edges.push({ set: NOT_SLASH, to: inSeg }, { set: ONLY_SLASH, to: cur })
      const next = add()
      states[cur]!.eps.push(next)
      cur = next
    } else {
      // One or more segments; well-formedness (no empty segment) is the path automaton's part.
      const next = add()
      states[cur]!.edges.push({ set: ANY, to: next })
      states[next]!.edges.push({ set: ANY, to: next })
      cur = next
    }
  }
  for (let i = 0; i < states.length; i++) states[i]!.close = closure(states, i)
  return states
}

function closure(states: readonly State[], from: number): number[] {
  const seen = new Set([from])
  const stack = [from]
  while (stack.length > 0) {
    for (const to of states[stack.pop()!]!.eps)
      if (!seen.has(to)) {
        seen.add(to)
        stack.push(to)
      }
  }
  return [...seen]
}

const has = (s: CharSet, cp: number): boolean => s.ranges.some(([lo, hi]) => cp >= lo && cp <= hi) !== s.neg

/**
 * Whether `path` matches the glob: a simulation of its automaton, linear in the path's length
 * times the glob's size (no backtracking, whatever the pattern).
 */
export function matches(glob: Glob, path: string): boolean {
  if (!path.startsWith(glob.prefix)) return false
  const st = glob.states
  let cur = new Set(st[0]!.close)
  for (const ch of path) {
    const cp = ch.codePointAt(0)!
    const next = new Set<number>()
    for (const s of cur) for (const e of st[s]!.edges) if (has(e.set, cp)) for (const c of st[e.to]!.close) next.add(c)
    if (next.size === 0) return false
    cur = next
  }
  return cur.has(st.length - 1)
}

/**
 * A well-formed path both globs match, or null when there is none. Breadth-first over the product
 * of both automata and the path automaton (0: at a segment's start, 1: inside a segment), so the
 * witness is a shortest one.
 */
export function overlap(a: Glob, b: Glob): string | null {
  const accA = a.states.length - 1
  const accB = b.states.length - 1
  const key = (i: number, j: number, v: number) => (i * b.states.length + j) * 2 + v
  const prev = new Map<number, { from: number; ch: string } | null>()
  const queue: [number, number, number][] = []
  const push = (i: number, j: number, v: number, link: { from: number; ch: string } | null) => {
    for (const ci of a.states[i]!.close)
      for (const cj of b.states[j]!.close) {
        const k = key(ci, cj, v)
        if (prev.has(k)) continue
        prev.set(k, link)
        queue.push([ci, cj, v])
      }
  }
  push(0, 0, 0, null)
  for (let head = 0; head < queue.length; head++) {
    const [i, j, v] = queue[head]!
    const here = key(i, j, v)
    if (i === accA && j === accB && v === 1) {
      let out = ''
      for (let k: number | undefined = here; k !== undefined;) {
        const link = prev.get(k)
        if (!link) break
        out = link.ch + out
        k = link.from
      }
      return out
    }
    for (const ea of a.states[i]!.edges)
      for (const eb of b.states[j]!.edges) {
        const both = meet(ea.set, eb.set)
        if (!both) continue
        // A "/" only inside a path: never first, never twice in a row.
        if (v === 1) {
          const s = meet(both, ONLY_SLASH)
          if (s) push(ea.to, eb.to, 0, { from: here, ch: '/' })
        }
        const t = meet(both, NOT_SLASH)
        if (t) push(ea.to, eb.to, 1, { from: here, ch: pick(t) })
      }
  }
  return null
}
