// Patches of the room page's parts: how a part's HTML changed between two renderings, as a few
// operations on the DOM the earlier rendering parsed into, so that a change sends each open page
// what changed in a part rather than the part (live-room.ts; the page applies them, client/
// patch.ts). Works on the HTML preact-render-to-string makes: tags closed in order, void elements
// self-closed (`<input/>`), text escaped, no comments and no whitespace of its own.
//
// A part's version is the hash of its rendering (`data-v` on its root, stampParts). An operation
// names its node by a path of child indexes (every child node, text included) from the part's
// root in the earlier rendering, and the node's tag (`#text` for text), which the page checks. A
// rendering whose DOM the browser's parser would not build as written (a block inside <p>, a form
// in a form, a link in a link, a row outside a table section, a close tag out of order) has no
// patch: the page fetches the part instead.
import { createHash } from 'node:crypto'

/** A node of a rendering: an element with its children, or text. Offsets into the rendering. */
export interface HtmlNode {
  /** Lowercase tag name; `#text` for text. */
  tag: string
  start: number
  end: number
  /** The end of the open tag (elements). */
  openEnd: number
  children: HtmlNode[]
}

/**
 * One operation, on the node the path names in the earlier rendering:
 *   `['r', path, tag, html]`  replace the node with `html`;
 *   `['d', path, tag]`        remove it;
 *   `['a', path, tag, html]`  insert `html` after it;
 *   `['p', path, tag, html]`  insert `html` as the element's first children;
 *   `['t', path, tag, set, removed]` set the element's attributes `set` ([name, value] pairs) and
 *   remove those named in `removed`.
 * Inserts are applied first, then the rest; every node is found before any is changed.
 */
export type PatchOp =
  | ['r' | 'a' | 'p', number[], string, string]
  | ['d', number[], string]
  | ['t', number[], string, [string, string][], string[]]

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
])
/** Elements whose content is text up to their close tag. */
const RAW = new Set(['textarea', 'script', 'style', 'title'])
/** Elements that close an open <p> in the browser's parser. */
const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'dialog',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
])

export class UnsafeHtml extends Error {}

/** The end of the tag opened at `i` (the index after its `>`), past quoted attribute values. */
function tagEnd(html: string, i: number): number {
  let quote = ''
  for (let j = i + 1; j < html.length; j++) {
    const c = html[j]!
    if (quote) {
      if (c === quote) quote = ''
    } else if (c === '"' || c === "'") quote = c
    else if (c === '>') return j + 1
  }
  throw new UnsafeHtml('a tag is not closed')
}

/**
 * The element that starts at `at` in `html`, parsed with its subtree. Throws UnsafeHtml where the
 * browser's parser would build another tree than the markup says.
 */
export function parseElement(html: string, at: number): HtmlNode {
  const stack: HtmlNode[] = []
  let root: HtmlNode | undefined
  let i = at
  while (i < html.length) {
    const top = stack.at(-1)
    if (html[i] !== '<') {
      const next = html.indexOf('<', i)
      const end = next < 0 ? html.length : next
      if (!top) throw new UnsafeHtml('text outside the element')
      top.children.push({ tag: '#text', start: i, end, openEnd: end, children: [] })
      i = end
      continue
    }
    if (html[i + 1] === '/') {
      const close = html.indexOf('>', i)
      const name = html.slice(i + 2, close).toLowerCase()
      if (!top || top.tag !== name) throw new UnsafeHtml(`</${name}> closes <${top?.tag ?? 'nothing'}>`)
      top.end = close + 1
      stack.pop()
      i = close + 1
      if (stack.length === 0) return root!
      continue
    }
    const end = tagEnd(html, i)
    const name = /^<([a-zA-Z][^\s/>]*)/.exec(html.slice(i, i + 40))?.[1]?.toLowerCase()
    if (!name) throw new UnsafeHtml('a tag without a name')
    if (stack.length > 0) {
      const open = new Set(stack.map((n) => n.tag))
      const inSvg = open.has('svg')
      if (!inSvg && open.has('p') && CLOSES_P.has(name)) throw new UnsafeHtml(`<${name}> in <p>`)
      if ((name === 'form' || name === 'a') && open.has(name)) throw new UnsafeHtml(`<${name}> in <${name}>`)
      if (name === 'tr' && top!.tag === 'table') throw new UnsafeHtml('<tr> outside a table section')
    }
    const node: HtmlNode = { tag: name, start: i, end, openEnd: end, children: [] }
    if (top) top.children.push(node)
    else root = node
    const selfClosed = html[end - 2] === '/' || VOID.has(name)
    if (selfClosed) {
      if (!top) return node
      i = end
      continue
    }
    stack.push(node)
    i = end
    if (RAW.has(name)) {
      const close = html.indexOf(`</${name}>`, i)
      if (close < 0) throw new UnsafeHtml(`<${name}> is not closed`)
      if (close > i) node.children.push({ tag: '#text', start: i, end: close, openEnd: close, children: [] })
      i = close
    }
  }
  throw new UnsafeHtml('the element is not closed')
}

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', lt: '<', gt: '>', apos: "'", nbsp: '\u00a0' }

function unescape(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
    return ENTITIES[e.toLowerCase()] ?? m
  })
}

/** The attributes of an open tag, as [name, value] pairs (a bare attribute has value ""). */
export function attributes(openTag: string): [string, string][] {
  const out: [string, string][] = []
  const re = /\s([^\s"'=/>]+)(?:=(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g
  const body = openTag.replace(/^<[^\s/>]+/, '').replace(/\/?>$/, '')
  for (let m = re.exec(body); m; m = re.exec(body)) out.push([m[1]!, unescape(m[2] ?? m[3] ?? m[4] ?? '')])
  return out
}

/** Operations past this many bytes of HTML are not worth sending: the page fetches the part. */
export const PATCH_MAX_BYTES = 16_384

/** Children lists past this product are aligned by their common ends only. */
const ALIGN_MAX = 40_000

class Differ {
  ops: PatchOp[] = []
  bytes = 0

  constructor(
    private readonly a: string,
    private readonly b: string,
  ) {}

  private text(n: HtmlNode, s: string): string {
    return s.slice(n.start, n.end)
  }

  private push(op: PatchOp, html = ''): void {
    this.ops.push(op)
    this.bytes += html.length + 8 + op[1].length * 2
  }

  /** The operations that turn element `x` (of a) into `y` (of b), both with the same tag. */
  element(x: HtmlNode, y: HtmlNode, path: number[]): void {
    const xo = this.a.slice(x.start, x.openEnd)
    const yo = this.b.slice(y.start, y.openEnd)
    if (xo !== yo) {
      const before = attributes(xo)
      const after = attributes(yo)
      const names = new Set(after.map(([k]) => k))
      const had = new Map(before)
      const set = after.filter(([k, v]) => had.get(k) !== v)
      const removed = before.map(([k]) => k).filter((k) => !names.has(k))
      this.push(['t', path, x.tag, set, removed], JSON.stringify(set))
    }
    this.children(x, y, path)
  }

  private children(x: HtmlNode, y: HtmlNode, path: number[]): void {
    const xs = x.children.map((n) => this.text(n, this.a))
    const ys = y.children.map((n) => this.text(n, this.b))
    // Matched pairs (old index, new index), in order.
    const pairs = align(xs, ys)
    let i = 0
    let j = 0
    for (const [mi, mj] of [...pairs, [xs.length, ys.length] as [number, number]]) {
      this.run(x, y, path, i, mi, j, mj)
      i = mi + 1
      j = mj + 1
    }
  }

  /** Old children [i0, i1) and new [j0, j1) between two matched ones. */
  private run(x: HtmlNode, y: HtmlNode, path: number[], i0: number, i1: number, j0: number, j1: number): void {
    const paired = Math.min(i1 - i0, j1 - j0)
    for (let k = 0; k < paired; k++) this.node(x.children[i0 + k]!, y.children[j0 + k]!, [...path, i0 + k])
    for (let k = i0 + paired; k < i1; k++) this.push(['d', [...path, k], x.children[k]!.tag])
    if (j0 + paired < j1) {
      const html = this.b.slice(y.children[j0 + paired]!.start, y.children[j1 - 1]!.end)
      const after = i0 + paired - 1
      if (after >= 0) this.push(['a', [...path, after], x.children[after]!.tag, html], html)
      else this.push(['p', path, x.tag, html], html)
    }
  }

  /** Node `x` of a becomes node `y` of b: the smaller of replacing it and patching inside it. */
  private node(x: HtmlNode, y: HtmlNode, path: number[]): void {
    const html = this.text(y, this.b)
    if (x.tag !== y.tag || x.tag === '#text' || RAW.has(x.tag)) {
      this.push(['r', path, x.tag, html], html)
      return
    }
    const inner = new Differ(this.a, this.b)
    inner.element(x, y, path)
    if (inner.bytes < html.length) {
      this.ops.push(...inner.ops)
      this.bytes += inner.bytes
    } else this.push(['r', path, x.tag, html], html)
  }
}

/**
 * The pairs of equal strings of `xs` and `ys` kept in order: the common ends, then the longest
 * common subsequence of what is between (by its length table, when small enough).
 */
function align(xs: string[], ys: string[]): [number, number][] {
  let s = 0
  while (s < xs.length && s < ys.length && xs[s] === ys[s]) s++
  let e = 0
  while (e < xs.length - s && e < ys.length - s && xs[xs.length - 1 - e] === ys[ys.length - 1 - e]) e++
  const head: [number, number][] = Array.from({ length: s }, (_, k) => [k, k])
  const tail: [number, number][] = Array.from({ length: e }, (_, k) => [xs.length - e + k, ys.length - e + k])
  const n = xs.length - s - e
  const m = ys.length - s - e
  const mid: [number, number][] = []
  if (n > 0 && m > 0 && n * m <= ALIGN_MAX) {
    const len = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1))
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        len[i]![j] = xs[s + i] === ys[s + j] ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!)
    let i = 0
    let j = 0
    while (i < n && j < m) {
      if (xs[s + i] === ys[s + j]) {
        mid.push([s + i, s + j])
        i++
        j++
      } else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++
      else j++
    }
  }
  return [...head, ...mid, ...tail]
}

/**
 * The operations that turn the part rendered `a` into `b` (each a part's root element alone), or
 * undefined when there is no safe or worthwhile patch (the page then fetches the part).
 */
export function diffPart(a: string, b: string): PatchOp[] | undefined {
  let x: HtmlNode
  let y: HtmlNode
  try {
    x = parseElement(a, 0)
    y = parseElement(b, 0)
  } catch (err) {
    if (err instanceof UnsafeHtml) return undefined
    throw err
  }
  if (x.tag !== y.tag || x.end !== a.length || y.end !== b.length) return undefined
  const d = new Differ(a, b)
  d.element(x, y, [])
  return d.bytes <= PATCH_MAX_BYTES ? d.ops : undefined
}

/** A time's words that change with the clock alone: `<time … data-ago>` and `<time … data-left>`. */
const CLOCKED = /(<time\b[^>]*?\sdata-(?:ago|left)(?:="")?(?=[\s>])[^>]*>)[^<]*(<\/time>)/g

/**
 * A part's rendering without the words of its times relative to now ("4 min ago", a lock's time
 * left: layout.tsx Ago, TimeLeft), which change with the clock, not the room: the form in which
 * the live stream keeps, versions and patches parts, so that a part's version changes only when
 * what it shows does. The page's script writes those words from each `datetime` (client/live.ts).
 */
export function timeless(html: string): string {
  return html.includes('<time ') ? html.replace(CLOCKED, '$1$2') : html
}

/** A part's version: the hash of its rendering (its root element, without `data-v`). */
export function versionOf(html: string): string {
  return createHash('sha1').update(html).digest('base64url').slice(0, 12)
}

/** Parts that are never patched: rendered into frames whole (head, the feed's count) or followed by item (the feed). */
const UNPATCHED = new Set(['head', 'events', 'events-count'])

/**
 * Each patchable part's root element of a rendering (`data-part` on its open tag): its
 * `data-part` value and where it is.
 */
export function partsIn(html: string): { name: string; start: number; end: number }[] {
  const out: { name: string; start: number; end: number }[] = []
  const re = /<[a-z]+ [^>]*?data-part="([^"]+)"/g
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const name = m[1]!
    if (UNPATCHED.has(name)) continue
    try {
      const el = parseElement(html, m.index)
      out.push({ name, start: el.start, end: el.end })
      re.lastIndex = el.end
    } catch (err) {
      if (!(err instanceof UnsafeHtml)) throw err
    }
  }
  return out
}

/**
 * `html` with `data-v` (versionOf of its timeless form) on the root of each patchable part it
 * holds, just before its `data-part`; `seen` gets each part's timeless rendering (unstamped) by
 * its `data-part`.
 */
export function stampParts(html: string, seen?: (parts: Map<string, string>) => void): string {
  let out = ''
  let at = 0
  const parts = new Map<string, string>()
  for (const p of partsIn(html)) {
    const part = timeless(html.slice(p.start, p.end))
    parts.set(p.name, part)
    const v = versionOf(part)
    const attr = html.indexOf(' data-part="', p.start)
    out += html.slice(at, attr) + ` data-v="${v}"`
    at = attr
  }
  seen?.(parts)
  return out + html.slice(at)
}
