// Prometheus metrics of one node (GET /metrics), on a registry of its own so that several nodes
// in one process (tests) never share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export class Metrics {
  readonly registry = new Registry()
  readonly requests: Counter<'route' | 'method' | 'status'>
  readonly latency: Histogram<'route' | 'method'>
  readonly toolCalls: Counter<'tool' | 'outcome'>
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
