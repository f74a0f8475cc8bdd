/// <reference lib="dom" />
// Applies a part's patch (src/dashboard/patch.ts) to the page: the operations name nodes by their
// path of child indexes from the part's root, as the server's rendering has them; nodes the
// script added itself (`data-client`) are not counted. Every node is found, and its tag checked,
// before anything changes; inserts go first, then replacements, attribute changes and removals.
// False when a node is not where the patch says: the page then fetches the part whole.

/** The operations as the frame carries them (patch.ts PatchOp). */
export type Op = [string, number[], string, ...unknown[]]

const kids = (n: Node): Node[] =>
  Array.from(n.childNodes).filter((c) => !(c instanceof Element && c.hasAttribute('data-client')))

const tagOf = (n: Node): string => (n.nodeType === Node.TEXT_NODE ? '#text' : (n as Element).localName)

/** The nodes `html` parses into where `parent` holds them (SVG content as SVG). */
function nodesOf(html: string, parent: Node | null): Node[] {
  const t = document.createElement('template')
  const svg = parent instanceof SVGElement
  t.innerHTML = svg ? `<svg>${html}</svg>` : html
  const root = svg ? t.content.firstChild! : t.content
  return Array.from(root.childNodes).map((n) => document.importNode(n, true))
}

/** Opens in `next` the <details> open in `prev`, matched by their summary's text. */
function keepOpen(prev: Node, next: Node): void {
  if (!(prev instanceof Element) || !(next instanceof Element)) return
  const summary = (d: Element) => d.querySelector(':scope > summary')?.textContent ?? ''
  const open = new Set(Array.from(prev.querySelectorAll('details[open]')).map(summary))
  if (prev instanceof HTMLDetailsElement && prev.open) open.add(summary(prev))
  for (const d of [next, ...Array.from(next.querySelectorAll('details'))])
    if (d instanceof HTMLDetailsElement && open.has(summary(d))) d.open = true
}

export function applyPatch(root: Element, ops: Op[]): boolean {
  const found: Node[] = []
  for (const op of ops) {
    if (!['a', 'p', 'r', 'd', 't'].includes(op[0])) return false
    let n: Node | undefined = root
    for (const i of op[1]) {
      n = n ? kids(n)[i] : undefined
      if (!n) return false
    }
    if (tagOf(n) !== op[2]) return false
    found.push(n)
  }
  const inserts = (i: number) => (ops[i]![0] === 'a' || ops[i]![0] === 'p' ? 0 : 1)
  const order = ops.map((_, i) => i).sort((a, b) => inserts(a) - inserts(b))
  for (const i of order) {
    const [kind, , , x, y] = ops[i]!
    const n = found[i]!
    if (kind === 'a') (n as ChildNode).after(...nodesOf(String(x), n.parentNode))
    else if (kind === 'p') (n as ParentNode).prepend(...nodesOf(String(x), n))
    else if (kind === 'r') {
      const next = nodesOf(String(x), n.parentNode)
      if (next[0]) keepOpen(n, next[0])
      ;(n as ChildNode).replaceWith(...next)
    } else if (kind === 'd') (n as ChildNode).remove()
    else if (kind === 't') {
      const el = n as Element
      for (const [k, v] of x as [string, string][]) el.setAttribute(k, v)
      for (const k of y as string[]) el.removeAttribute(k)
    }
  }
  return true
}
