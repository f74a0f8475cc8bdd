// Serving: the HTTP server, its limits, the team rate limit, SSE streams, MCP origins, logs and
// shutdown. Rows of the settings table (src/config.ts); read by src/node.ts, src/http and
// src/auth/ratelimit.ts.
import { z } from 'zod'
import { cidrProblem } from '../http/client-address.js'
import { int, seconds, type Row } from './row.js'

export const SERVING_SETTINGS = {
  httpBodyBytes: {
    env: 'LIMIT_HTTP_BODY_BYTES',
    schema: int(1024, 64 * 1024 * 1024, 256 * 1024),
    unit: 'bytes',
    doc: 'Largest HTTP request body; larger ones get 413.',
  },
  httpHeaderBytes: {
    env: 'LIMIT_HTTP_HEADER_BYTES',
    schema: int(4096, 1024 * 1024, 16 * 1024),
    unit: 'bytes',
    doc:
      'Largest request line and headers together; larger requests get 431 from the HTTP server itself ' +
      '(uWebSockets.js, before the service: a short HTML answer, not the JSON error body). The server reads it ' +
      'once per process, when the first node starts.',
  },
  rateLimitPerMin: {
    env: 'RATE_LIMIT_PER_MIN',
    schema: int(1, 10_000_000, 1200),
    unit: 'calls/min',
    doc: 'Calls a team may make per rolling minute (all its credentials together, HTTP and MCP).',
  },
  rateLimitOverrides: {
    env: 'RATE_LIMIT_OVERRIDES',
    schema: z
      .string()
      .regex(
        /^([A-Za-z0-9][A-Za-z0-9_-]{0,63}=[0-9]{1,8})?(,[A-Za-z0-9][A-Za-z0-9_-]{0,63}=[0-9]{1,8})*$/,
        'must look like "team-a=5000,team-b=300"',
      )
      .default('')
      .transform(
        (v) =>
          new Map(
            v === ''
              ? []
              : v.split(',').map((p) => {
                  const [t, n] = p.split('=')
                  return [t!, Number(n)] as const
                }),
          ),
      ),
    unit: 'team=calls/min list',
    doc: 'Per-team rate limits that replace RATE_LIMIT_PER_MIN, e.g. "default=5000,tm-abc=300".',
  },
  rateLimitPerCredentialPerMin: {
    env: 'RATE_LIMIT_PER_CREDENTIAL_PER_MIN',
    schema: int(0, 10_000_000, 400),
    unit: 'calls/min',
    doc:
      'Calls each credential (a team key, a room invite key, an OAuth grant, a person on the dashboard) may ' +
      "make per rolling minute, inside its team's limit. The default, a third of the default team limit, " +
      'leaves a third of it to the others when two credentials run flat out. 0, or a value not below the ' +
      "team's limit: none below the team's limit.",
  },
  dashboardActionsPerMin: {
    env: 'DASHBOARD_ACTIONS_PER_MIN',
    schema: int(1, 100_000, 120),
    unit: 'forms/min',
    doc:
      "Forms one signed-in person may post per rolling minute; each also counts against the team's " +
      'RATE_LIMIT_PER_MIN. Reading pages is not counted.',
  },
  port: {
    env: 'PORT',
    schema: int(0, 65535, 8080),
    unit: 'port',
    doc: 'HTTP port the node listens on (0: any free port).',
  },
  host: {
    env: 'HOST',
    schema: z.string().min(1).default('127.0.0.1'),
    unit: 'address',
    doc:
      'Address the node listens on. The default reaches this machine only; containers set 0.0.0.0 ' +
      '(the Dockerfile and k8s/ do). With a loopback HOST and no PUBLIC_URL the node counts as a ' +
      "development one: at first start it prints the default team's key and its owner's sign-in link.",
  },
  trustedProxyHops: {
    env: 'TRUSTED_PROXY_HOPS',
    schema: int(0, 10, 0),
    unit: 'proxies',
    doc:
      'How many proxies stand in front of the node, each appending to X-Forwarded-For (1 for the shipped ' +
      'nginx, 1 for a Kubernetes ingress controller, 2 with a cloud load balancer before it). The client ' +
      'address of per-client limits is then that many entries from the right. 0: the socket address. Set it ' +
      'only when clients cannot reach the node except through those proxies.',
  },
  trustedProxyCidrs: {
    env: 'TRUSTED_PROXY_CIDRS',
    schema: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean),
      )
      .superRefine((ranges, ctx) => {
        for (const r of ranges) {
          const problem = cidrProblem(r)
          if (problem) ctx.addIssue({ code: 'custom', message: problem })
        }
      }),
    unit: 'CIDR list',
    doc:
      'Address ranges of trusted proxies, e.g. "10.0.0.0/8,fd00::/8": the client address is the right-most ' +
      'X-Forwarded-For entry outside them, when the socket peer is inside them. Replaces TRUSTED_PROXY_HOPS ' +
      'when set.',
  },
  metricsToken: {
    env: 'METRICS_TOKEN',
    schema: z
      .string()
      .regex(
        /^([A-Za-z0-9._~+/=-]{16,256})?$/,
        'must be 16-256 characters of a bearer token (letters, digits, ._~+/=-)',
      )
      .default(''),
    unit: 'secret',
    doc:
      'When set, GET /metrics answers only "Authorization: Bearer <METRICS_TOKEN>" (401 otherwise), so ' +
      'a node reachable from outside does not show its metrics to anyone. Unset: /metrics is open, for a ' +
      'scraper on a network that only it and the nodes share; a node outside development warns at start.',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    unit: 'level',
    doc: 'pino log level.',
  },
  shutdownGraceMs: {
    env: 'SHUTDOWN_GRACE_S',
    schema: seconds(1, 600, 10),
    unit: 's',
    doc: 'On SIGTERM the node stops accepting, ends streams and long-polls, and exits within this time.',
  },
  sseKeepaliveMs: {
    env: 'SSE_KEEPALIVE_S',
    schema: seconds(1, 300, 15),
    unit: 's',
    doc: 'Interval of the keep-alive comment on SSE streams (and long MCP replies).',
  },
  sseBufferBytes: {
    env: 'SSE_BUFFER_BYTES',
    schema: int(1024, 256 * 1024 * 1024, 1024 * 1024),
    unit: 'bytes',
    doc: 'Unsent bytes a slow SSE consumer may hold on the node before its stream is closed.',
  },
  openPerCredential: {
    env: 'OPEN_PER_CREDENTIAL',
    schema: int(1, 1_000_000, 2000),
    unit: 'streams',
    doc:
      'Event streams (room stream, dashboard live view, subscriptions/listen) and parked waits (wait_for_events, ' +
      'Stop hooks) one credential or person may hold open on one node at once; more are refused (409 limit_reached).',
  },
  openPerTeam: {
    env: 'OPEN_PER_TEAM',
    schema: int(1, 10_000_000, 10_000),
    unit: 'streams',
    doc: "Open streams and parked waits of all one team's credentials and people on one node; more are refused.",
  },
  mcpAllowedOrigins: {
    env: 'MCP_ALLOWED_ORIGINS',
    schema: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      ),
    unit: 'origin list',
    doc:
      "Browser origins allowed to call /mcp besides the node's own host (cross-origin check; keys are what " +
      'stop DNS rebinding); "*" allows any. Requests without an Origin header are not affected.',
  },
} as const satisfies Record<string, Row>
