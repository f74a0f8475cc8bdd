// Patches of the room page's parts (src/dashboard/patch.ts): the operations between two
// renderings, applied to the earlier one's tree as the page applies them (every node found first,
// inserts before the rest), give the later rendering exactly; markup the browser would build
// otherwise gets no patch; versions stamp each part's root. The page's own applier, on a real DOM,
// is test/e2e/dashboard-live-parts.test.ts.
import { h } from 'preact'
import { renderToString } from 'preact-render-to-string'
import t, { type Test } from 'tap'
import {
  attributes,
  diffPart,
  parseElement,
  partsIn,
  stampParts,
  timeless,
  versionOf,
  type HtmlNode,
  type PatchOp,
} from '../../src/dashboard/patch.js'

/** A tree the test can change: an element (open tag as attribute pairs) or text. */
interface Live {
  tag: string
  text?: string
  attrs?: [string, string][]
  selfClosed?: boolean
  kids: Live[]
}

function toLive(html: string, n: HtmlNode): Live {
  if (n.tag === '#text') return { tag: '#text', text: html.slice(n.start, n.end), kids: [] }
  const open = html.slice(n.start, n.openEnd)
  return {
    tag: n.tag,
    attrs: attributes(open),
    selfClosed: open.endsWith('/>'),
    kids: n.children.map((c) => toLive(html, c)),
  }
}

const esc = (v: string) => v.replaceAll('&', '&amp;').replaceAll('"', '&quot;')

function serialise(n: Live): string {
  if (n.tag === '#text') return n.text!
  const attrs = n.attrs!.map(([k, v]) => (v === '' ? ` ${k}` : ` ${k}="${esc(v)}"`)).join('')
  if (n.selfClosed) return `<${n.tag}${attrs}/>`
  return `<${n.tag}${attrs}>${n.kids.map(serialise).join('')}</${n.tag}>`
}

/** The nodes `html` is, as a list of trees (a wrapper parsed and dropped). */
function nodes(html: string): Live[] {
  const wrapped = `<div>${html}</div>`
  return toLive(wrapped, parseElement(wrapped, 0)).kids
}

/** Applies `ops` to `root` as client/patch.ts does. */
function apply(root: Live, ops: PatchOp[]): void {
  const found = ops.map((op) => {
    let parent: Live | undefined
    let n = root
    for (const i of op[1]) {
      parent = n
      n = n.kids[i]!
      if (!n) throw new Error(`no node at ${op[1].join('.')}`)
    }
    if (n.tag !== op[2]) throw new Error(`${op[1].join('.')} is ${n.tag}, not ${op[2]}`)
    return { n, parent }
  })
  const order = ops
    .map((_, i) => i)
    .sort((a, b) => Number(!'ap'.includes(ops[a]![0])) - Number(!'ap'.includes(ops[b]![0])))
  for (const i of order) {
    const op = ops[i]!
    const { n, parent } = found[i]!
    const at = () => parent!.kids.indexOf(n)
    if (op[0] === 'a') parent!.kids.splice(at() + 1, 0, ...nodes(op[3]))
    else if (op[0] === 'p') n.kids.unshift(...nodes(op[3]))
    else if (op[0] === 'r') parent!.kids.splice(at(), 1, ...nodes(op[3]))
    else if (op[0] === 'd') parent!.kids.splice(at(), 1)
    else if (op[0] === 't') {
      const [, , , set, removed] = op
      const attrs = new Map(n.attrs)
      for (const [k, v] of set) attrs.set(k, v)
      for (const k of removed) attrs.delete(k)
      n.attrs = [...attrs]
    }
  }
}

/** `a` patched into `b`: the operations, checked to rebuild `b`. */
function roundTrip(t: Test, a: string, b: string, name: string): PatchOp[] {
  const ops = diffPart(a, b)
  if (!ops) {
    t.fail(`${name}: a patch`)
    return []
  }
  const root = toLive(a, parseElement(a, 0))
  apply(root, ops)
  t.equal(serialise(root), serialise(toLive(b, parseElement(b, 0))), `${name}: the patch rebuilds the new rendering`)
  return ops
}

const card = (id: string, status: string, who = '') =>
  h(
    'li',
    { id: `task-${id}`, class: `card ${status}` },
    h('a', { href: `/room?id=r&task=${id}` }, `Task ${id}`),
    who ? h('span', null, `assignee ${who}`) : null,
  )

const board = (cols: Record<string, string[]>, assignee: Record<string, string> = {}) =>
  renderToString(
    h(
      'section',
      { 'data-part': 'plan', 'aria-labelledby': 'plan' },
      h('h2', { id: 'plan' }, 'Plan ', h('span', { class: 'muted' }, `(${Object.values(cols).flat().length} tasks)`)),
      ...Object.entries(cols).map(([status, ids]) =>
        h(
          'div',
          { id: `col-${status}`, class: 'col' },
          h('h3', null, `${status} (${ids.length})`),
          h('ul', { class: 'cards' }, ...ids.map((id) => card(id, status, assignee[id]))),
          h('input', { type: 'hidden', name: 'status', value: status }),
        ),
      ),
    ),
  )

t.test('a task that moves between columns: a few small operations', async (t) => {
  const todo = Array.from({ length: 20 }, (_, i) => `t${i + 1}`)
  const a = board({ todo, in_progress: ['t30'], done: [] })
  const b = board({ todo: todo.filter((x) => x !== 't5'), in_progress: ['t5', 't30'], done: [] }, { t5: 'agent-3' })
  const ops = roundTrip(t, a, b, 'a claim')
  const bytes = JSON.stringify(ops).length
  t.ok(bytes < 700, `${ops.length} operations, ${bytes} B of JSON, for parts of ${a.length} and ${b.length} B`)
  t.ok(
    ops.some((o) => o[0] === 'd' && o[2] === 'li'),
    'the card leaves its column',
  )
  t.same(diffPart(a, a), [], 'nothing between a rendering and itself')
  roundTrip(t, b, a, 'put back')
})

t.test('attributes, text, inserts at the start, removals at the end, replaced kinds of node', async (t) => {
  const part = (...kids: Parameters<typeof h>[2][]) => renderToString(h('div', { 'data-part': 'x' }, ...kids))
  roundTrip(
    t,
    part(h('p', { class: 'a', title: 'x > y' }, 'one'), h('span', null, 'two')),
    part(h('p', { class: 'b', 'data-n': '"3"' }, 'one'), h('span', null, 'three')),
    'attributes set and removed, text changed',
  )
  roundTrip(
    t,
    part(h('ul', null, h('li', null, 'b'))),
    part(h('ul', null, h('li', null, 'a'), h('li', null, 'b'))),
    'prepended',
  )
  roundTrip(
    t,
    part(h('ul', null, h('li', null, 'a'), h('li', null, 'b'), h('li', null, 'c'))),
    part(h('ul', null, h('li', null, 'a'))),
    'removed at the end',
  )
  roundTrip(t, part(h('em', null, 'x'), 'tail'), part('head', h('strong', null, 'x'), 'tail'), 'a text and an element')
  roundTrip(
    t,
    part(h('textarea', { name: 'n' }, 'a <b>')),
    part(h('textarea', { name: 'n' }, 'c & d')),
    'a textarea whole',
  )
  roundTrip(
    t,
    part(h('svg', { viewBox: '0 0 10 10' }, h('rect', { x: 1 }), h('path', { d: 'M0 0' }))),
    part(h('svg', { viewBox: '0 0 10 10' }, h('rect', { x: 2 }), h('circle', { r: 1 }), h('path', { d: 'M0 0' }))),
    'inside an SVG',
  )
  roundTrip(
    t,
    part(h('input', { value: 'a' }), h('br', null)),
    part(h('input', { value: 'b', disabled: true }), h('br', null)),
    'void elements',
  )
})

t.test('markup the browser builds otherwise, or a different root: no patch', async (t) => {
  const ok = '<section data-part="x"><p>a</p></section>'
  t.equal(diffPart(ok, '<section data-part="x"><p><div>a</div></p></section>'), undefined, 'a block inside <p>')
  t.equal(diffPart(ok, '<section data-part="x"><form><form></form></form></section>'), undefined, 'a form in a form')
  t.equal(diffPart(ok, '<section data-part="x"><a><a>x</a></a></section>'), undefined, 'a link in a link')
  t.equal(diffPart(ok, '<section data-part="x"><table><tr><td>1</td></tr></table></section>'), undefined, 'a bare row')
  t.equal(diffPart(ok, '<section data-part="x"><p>a</span></section>'), undefined, 'a close tag out of order')
  t.equal(diffPart(ok, '<div data-part="x"><p>a</p></div>'), undefined, 'another root element')
  t.ok(
    diffPart(ok, '<section data-part="x"><table><tbody><tr><td>1</td></tr></tbody></table></section>'),
    'a table with its body',
  )
})

t.test('every patchable part of a page gets its version on its root; head and the feed do not', async (t) => {
  const page =
    '<!doctype html><main><p data-part="head">h</p>' +
    '<section data-part="plan" class="a">P<span data-part="x">i</span></section>' +
    '<section data-part="events"><span data-part="events-count">3</span></section><div data-part="panel"></div></main>'
  t.same(
    partsIn(page).map((p) => p.name),
    ['plan', 'panel'],
    'the parts patched (a part inside another is its own: not listed)',
  )
  const stamped = stampParts(page)
  const plan = '<section data-part="plan" class="a">P<span data-part="x">i</span></section>'
  t.ok(stamped.includes(`<section data-v="${versionOf(plan)}" data-part="plan" class="a">`), 'the plan stamped')
  t.ok(stamped.includes(`<div data-v="${versionOf('<div data-part="panel"></div>')}" data-part="panel">`), 'the panel')
  t.ok(stamped.includes('<p data-part="head">h</p>'), 'the head is not')
  t.ok(stamped.includes('<section data-part="events"><span data-part="events-count">3</span>'), 'nor the feed')
  t.equal(stamped.replace(/ data-v="[^"]+"/g, ''), page, 'and nothing else changes')
})

t.test('the words of times relative to now are in no version and no patch', async (t) => {
  const at = (words: string, left: string) =>
    '<section data-part="locks"><p>seen <time datetime="2026-12-04T20:00:00.000Z" title="2026-12-04 20:00:00 UTC" ' +
    `data-ago>${words}</time></p><p><time datetime="2026-12-04T21:00:00.000Z" title="until 21:00" data-left>${left}` +
    '</time> <time datetime="2026-12-04T19:00:00.000Z">19:00</time></p></section>'
  const before = at('just now', '59 min 59 s')
  const later = at('4 min ago', '55 min 1 s')
  t.equal(timeless(before), timeless(later), 'two renderings a few minutes apart are the same')
  t.match(timeless(before), '<time datetime="2026-12-04T19:00:00.000Z">19:00</time>', 'an absolute time keeps its text')
  t.equal(timeless(timeless(before)), timeless(before), 'idempotent')
  const page = `<!doctype html><main>${before}</main>`
  const stamped = stampParts(page, (parts) => t.equal(parts.get('locks'), timeless(before), 'the part as kept'))
  t.match(stamped, `data-v="${versionOf(timeless(later))}"`, 'the version of the later rendering')
  t.match(stamped, '>just now</time>', 'the page itself keeps the words')
  t.same(diffPart(timeless(before), timeless(later)), [], 'nothing to patch')
})
