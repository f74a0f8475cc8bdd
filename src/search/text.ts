// Text handling shared by the search engines: folding (case, accents, compatibility forms), word
// splitting with offsets, and snippets with the matched words highlighted.
//
// A word is a run of letters and digits (Unicode); everything else separates words, so
// "spec/api", "snake_case" and "t7:" give "spec" "api", "snake" "case", "t7". Folding is NFKD,
// then combining marks removed, then lower case: "Crème" and "CREME" both index as "creme", and
// the ligature "ﬁ" as "fi". Scripts without spaces (CJK) index a whole run as one word.

/** Longest word kept (longer runs are identifiers, hashes or base64, not words). */
export const MAX_WORD = 64
/** Highlight markers around a matched word in a snippet (Meilisearch is asked for the same). */
export const MARK_OPEN = '**'
export const MARK_CLOSE = '**'
export const ELLIPSIS = '…'

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u
const MARKS = /\p{M}+/gu

/** Folds one word or a whole text. */
export function fold(s: string): string {
  // eslint-disable-next-line no-control-regex -- the ASCII fast path is the point
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase()
  return s.normalize('NFKD').replace(MARKS, '').toLowerCase()
}

function isWordCode(s: string, i: number, c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)
  if (c >= 0xd800 && c <= 0xdbff) return WORD_CHAR.test(s.slice(i, i + 2))
  if (c >= 0xdc00 && c <= 0xdfff) return WORD_CHAR.test(s.slice(i - 1, i + 1))
  return WORD_CHAR.test(s[i]!)
}

/**
 * Calls `fn(word, start, end)` for every word of `s`, folded, with its UTF-16 offsets in `s`,
 * until `fn` returns true. Words longer than MAX_WORD are skipped. A charCode loop: this runs over
 * every indexed byte.
 */
export function eachWord(s: string, fn: (word: string, start: number, end: number) => boolean | void): void {
  const n = s.length
  let start = -1
  let ascii = true
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 32
    const w = i < n && isWordCode(s, i, c)
    if (w) {
      if (start < 0) start = i
      if (c >= 128) ascii = false
      continue
    }
    if (start < 0) continue
    if (i - start <= MAX_WORD * 2) {
      const raw = s.slice(start, i)
      const word = ascii ? raw.toLowerCase() : raw.normalize('NFKD').replace(MARKS, '').toLowerCase()
      if (word.length > 0 && word.length <= MAX_WORD && fn(word, start, i) === true) return
    }
    start = -1
    ascii = true
  }
}

/**
 * A copy of `s` that shares no memory with the string it was cut from. V8 makes a slice of 13
 * characters or more (and a case change or normalisation that changes nothing) a view into its
 * parent, which then stays alive as long as the slice: a word kept as an index term would keep a
 * whole 64 KiB body alive after its document went. Concatenation or slice tricks can still return
 * views; a round trip through UTF-8 bytes always builds a new string. For terms new to an index.
 */
export function flat(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8')
}

/** The folded words of `s`, in order. */
export function words(s: string): string[] {
  const out: string[] = []
  eachWord(s, (w) => {
    out.push(w)
  })
  return out
}

/** Text cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
export function cutBytes(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes || Buffer.byteLength(s, 'utf8') <= maxBytes) return s
  const buf = Buffer.from(s, 'utf8').subarray(0, maxBytes)
  // A cut inside a multi-byte character decodes to U+FFFD at the end: drop it.
  return buf.toString('utf8').replace(/\uFFFD+$/, '')
}

/** Offset of the first word of `text` in `matched`, or -1. Stops there: a match is usually early. */
export function firstMatch(text: string, matched: ReadonlySet<string>): number {
  let at = -1
  eachWord(text, (w, s) => {
    if (!matched.has(w)) return false
    at = s
    return true
  })
  return at
}

/**
 * A short extract of `text` around its first word in `matched` (folded words), every matched word
 * in the extract wrapped in MARK_OPEN/MARK_CLOSE, cut at word boundaries with ELLIPSIS where the
 * text goes on. Whitespace runs become one space. `width` is in characters. Only the extract is
 * scanned past the first match, so a long text costs little.
 */
export function snippet(text: string, matched: ReadonlySet<string>, width = 160): string {
  const first = firstMatch(text, matched)
  let from = first < 0 ? 0 : Math.max(0, first - Math.floor(width / 4))
  let to = Math.min(text.length, from + width)
  if (to === text.length) from = Math.max(0, to - width)
  // Move the cuts to whitespace (at most 20 characters away) so no word is shown in part.
  if (from > 0) {
    const m = /\s\S*$/.exec(text.slice(Math.max(0, from - 20), from))
    if (m) from -= m[0].length - 1
  }
  if (to < text.length) {
    const m = /^\S*\s/.exec(text.slice(to, to + 20))
    if (m) to += m[0].length - 1
  }
  const piece = text.slice(from, to)
  let out = ''
  let at = 0
  eachWord(piece, (w, s, e) => {
    if (!matched.has(w)) return
    out += piece.slice(at, s) + MARK_OPEN + piece.slice(s, e) + MARK_CLOSE
    at = e
  })
  out += piece.slice(at)
  out = out.replace(/\s+/g, ' ')
  if (from === 0) out = out.trimStart()
  if (to === text.length) out = out.trimEnd()
  return (from > 0 ? ELLIPSIS + out.trimStart() : out) + (to < text.length ? ELLIPSIS : '')
}
