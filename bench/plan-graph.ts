// The cost of the room page's plan graph on the node, in this process: a new layout by dagre
// (layoutOf with a shape it has not seen), and the graph's section rendered to HTML with the
// layout kept (what a page re-read after a claim or a post pays), at several sizes around the
// cap (GRAPH_TASKS), p50 and p95 over --runs. Plans shaped as agents write them: each task
// waits for 0-2 earlier ones (seeded), so a long chain and many short ones. The Redis read
// (lua/readGraph.lua) is part of the whole page, measured by bench/dashboard-render.ts.
//   npx tsx bench/plan-graph.ts [--runs 40] [--sizes 25,50,100,200]
import { parseArgs } from 'node:util'
import { renderToString } from 'preact-render-to-string'
import { GRAPH_TASKS, criticalPath, type Edge, type PlanPicture } from '../src/core/plan-graph.js'
import type { Task } from '../src/core/plan.js'
import { Here } from '../src/dashboard/room.js'
import { PlanGraph, layoutOf } from '../src/dashboard/room-graph.js'
import { fmt, percentile, STANDARD_TITLES } from './lib.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '40' },
    sizes: { type: 'string', default: `25,${GRAPH_TASKS},100,200` },
  },
})
const runs = Number(values.runs)
const sizes = values.sizes.split(',').map(Number)

/** A plan of `n` open tasks numbered from `first`: each waits for 0-2 earlier ones. */
function plan(n: number, first: number, seed: number): { tasks: Task[]; edges: Edge[] } {
  let s = seed
  const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647
  const tasks: Task[] = []
  const edges: Edge[] = []
  const at = new Date().toISOString()
  for (let i = 0; i < n; i++) {
    const id = `t${first + i}`
    const deps = new Set<string>()
    for (let k = Math.floor(rnd() * 3); i > 0 && k > 0; k--) deps.add(`t${first + Math.floor(rnd() * i)}`)
    for (const d of deps) edges.push({ from: d, to: id })
    const status = i % 10 === 1 ? 'in_progress' : i % 20 === 2 ? 'in_review' : 'todo'
    tasks.push({
      id,
      title: STANDARD_TITLES[i % STANDARD_TITLES.length]!,
      status,
      ...(status === 'todo' ? {} : { assignee: `agent-${i % 20}` }),
      depends_on: [...deps],
      priority: 'normal',
      order: i,
      created_at: at,
      updated_at: at,
    })
  }
  return { tasks, edges }
}

const here = new Here('big', new URLSearchParams('id=big'))
const ms = (f: () => void) => {
  const t0 = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - t0) / 1e6
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return `p50 ${fmt(percentile(s, 50), 2)} ms, p95 ${fmt(percentile(s, 95), 2)} ms`
}

// Warm-up: the first layouts run cold code.
for (let i = 0; i < 5; i++) {
  const p = plan(GRAPH_TASKS, 1_000_000 + i * 1000, 7 + i)
  layoutOf(
    p.tasks.map((t) => t.id),
    p.edges,
  )
}

console.log(`runs ${runs}, Node ${process.version}`)
for (const n of sizes) {
  const fresh: number[] = []
  const kept: number[] = []
  let html = 0
  let path = 0
  for (let r = 0; r < runs; r++) {
    // Numbered apart each run, so the layout is never one kept from an earlier run.
    const p = plan(n, (r + 1) * 10_000 + n, 11 + r)
    const ids = p.tasks.map((t) => t.id)
    fresh.push(ms(() => layoutOf(ids, p.edges)))
    const critical = criticalPath(ids, p.edges)
    path = critical.length
    const picture: PlanPicture = {
      tasks: p.tasks,
      edges: p.edges,
      critical,
      open: n,
      outside: [],
      activity: { since: '', now: '', held: [], done: [] },
    }
    kept.push(ms(() => (html = renderToString(PlanGraph({ picture, here })).length)))
  }
  const f = [...fresh].sort((a, b) => a - b)
  const k = [...kept].sort((a, b) => a - b)
  console.log(
    `${n} tasks (${n === GRAPH_TASKS ? 'the cap' : n < GRAPH_TASKS ? 'under the cap' : 'over the cap'}), ` +
      `critical path ${path}: new layout ${stats(fresh)}; section with the layout kept ${stats(kept)} ` +
      `(${fmt(percentile(f, 50) / percentile(k, 50), 1)}× less at p50), ${fmt(html / 1024, 1)} kB of HTML`,
  )
}
