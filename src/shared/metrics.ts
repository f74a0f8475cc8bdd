// Prometheus metrics of one node (GET /metrics), on a registry of its own so that several nodes
// in one process (tests) never share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/**
 * Increments of a labelled counter kept by the node and added to it when it is read (prom-client
 * calls a counter's `collect` on every read: GET /metrics, `get()`): an increment is a lookup of
 * its label values and an add, where the counter's own inc() checks and hashes an object of labels
 * on every call. What is read is the same.
 */
export class Counts {
  private readonly root = new Map<string, Map<string, CountEntry | Map<string, CountEntry>>>()
  private readonly entries: CountEntry[] = []

  /** `names`: the counter's label names, two or three, in the order add() takes their values. */
  constructor(private readonly names: readonly [string, string] | readonly [string, string, string]) {}

  /** One more for these label values (`c` when the counter has three labels). */
  add(a: string, b: string, c?: string): void {
    let byB = this.root.get(a)
    if (!byB) this.root.set(a, (byB = new Map()))
    let entry: CountEntry | undefined
    if (this.names.length === 2) {
      entry = byB.get(b) as CountEntry | undefined
      if (!entry) byB.set(b, (entry = this.entry([a, b])))
    } else {
      let byC = byB.get(b) as Map<string, CountEntry> | undefined
      if (!byC) byB.set(b, (byC = new Map()))
      entry = byC.get(c!)
      if (!entry) byC.set(c!, (entry = this.entry([a, b, c!])))
    }
    entry.n++
  }

  private entry(values: string[]): CountEntry {
    const labels: Record<string, string> = {}
    this.names.forEach((name, i) => (labels[name] = values[i]!))
    const entry = { labels, n: 0 }
    this.entries.push(entry)
    return entry
  }

  /** Adds what was counted since the last flush to `counter`. */
  flush(counter: Counter<string>): void {
    for (const e of this.entries)
      if (e.n > 0) {
        counter.inc(e.labels, e.n)
        e.n = 0
      }
  }
}

interface CountEntry {
  labels: Record<string, string>
  n: number
}

export class Metrics {
  readonly registry = new Registry()
  readonly requests: Counter<'route' | 'method' | 'status'>
  readonly latency: Histogram<'route' | 'method'>
  readonly toolCalls: Counter<'tool' | 'outcome'>
  /** `requests` by route, method and status, counted between reads (Counts). */
  readonly requestCounts = new Counts(['route', 'method', 'status'])
  /** `toolCalls` by tool and outcome, counted between reads (Counts). */
  readonly toolCallCounts = new Counts(['tool', 'outcome'])
  readonly sseConnections: Gauge
  readonly parkedWaiters: Gauge
  readonly redisErrors: Counter<'kind'>
  readonly rateLimited: Counter

  constructor(defaults = true) {
    const registers = [this.registry]
    this.requests = new Counter({
      name: 'agentrooms_http_requests_total',
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
      collect: () => this.requestCounts.flush(this.requests),
    })
    this.latency = new Histogram({
      name: 'agentrooms_http_request_duration_seconds',
      help: 'HTTP request latency by route (streams: until the response started)',
      labelNames: ['route', 'method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    })
    this.toolCalls = new Counter({
      name: 'agentrooms_mcp_tool_calls_total',
      help: 'MCP tool calls by tool and outcome (ok, error)',
      labelNames: ['tool', 'outcome'],
      registers,
      collect: () => this.toolCallCounts.flush(this.toolCalls),
    })
    this.sseConnections = new Gauge({
      name: 'agentrooms_sse_connections',
      help: 'Open SSE streams on this node',
      registers,
    })
    this.parkedWaiters = new Gauge({
      name: 'agentrooms_parked_waiters',
      help: 'wait_for_events calls parked on this node',
      registers,
    })
    this.redisErrors = new Counter({
      name: 'agentrooms_redis_errors_total',
      help: 'Redis errors seen by this node',
      labelNames: ['kind'],
      registers,
    })
    this.rateLimited = new Counter({
      name: 'agentrooms_rate_limited_total',
      help: 'Calls refused by the team rate limit',
      registers,
    })
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'agentrooms_' })
  }
}
