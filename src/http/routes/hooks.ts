// POST /rooms/:roomId/agents/:agentId/hooks/stop: the Stop hook of a coding agent over HTTP (Claude Code's
// `type: "http"` hooks; `agentrooms hook …` calls it for command hooks). The body is the hook's
// JSON (stop_hook_active is read, the rest ignored); the answer is Claude Code's Stop-hook output:
// {"decision": "block", "reason": …} to keep the agent going with what is new for it, or {} to let
// it stop. It consumes nothing (src/realtime/wake.ts). While it waits it sends a space every few
// seconds (JSON allows leading whitespace), so no proxy or idle timeout cuts the request.
import { z } from 'zod'
import type { Keyring } from '../../auth/keyring.js'
import { holderOf, type OpenCaps } from '../../auth/open-caps.js'
import { agentId } from '../../shared/fields.js'
import type { Core } from '../../core/index.js'
import type { Wake } from '../../realtime/wake.js'
import { WAKE_WAIT_MAX_S, wakeReason } from '../../realtime/wake.js'
import { parse } from '../../shared/validate.js'
import { RoomNotFound } from '../../shared/errors.js'
import type { Lifecycle } from '../../shared/lifecycle.js'
import type { Route } from '../router.js'
import { roomOf } from './access.js'

/** How often a waiting hook request sends a space. */
const KEEPALIVE_MS = 5_000

export interface HookRouteDeps {
  core: Pick<Core, 'rooms'>
  wake: Pick<Wake, 'look'>
  keyring: Pick<Keyring, 'hold'>
  lifecycle: Pick<Lifecycle, 'onDrain'>
  openCaps: Pick<OpenCaps, 'take'>
}

const hookQuery = z.strictObject({
  wait_s: z.coerce
    .number()
    .int('must be whole seconds')
    .min(0, 'must be 0 or more')
    .max(WAKE_WAIT_MAX_S, `must be at most ${WAKE_WAIT_MAX_S}`)
    .default(0)
    .describe(`Longest wait for something new, 0-${WAKE_WAIT_MAX_S} s (default 0: look once)`),
  mentions: z
    .enum(['true', 'false'])
    .optional()
    .describe('"true": only events that name @agent or reply to its events'),
})

/** The Stop hook's input: only stop_hook_active matters; every other field is accepted and ignored. */
const hookBody = z.looseObject({
  stop_hook_active: z.boolean().optional().describe('True when a stop hook already kept the agent going'),
})

const hookAnswer = z.object({ decision: z.literal('block').optional(), reason: z.string().optional() })

export function hookRoutes(deps: HookRouteDeps): Route[] {
  return [
    {
      method: 'POST',
      path: '/rooms/:roomId/agents/:agentId/hooks/stop',
      auth: 'any',
      tag: 'rooms',
      summary:
        "A coding agent's Stop hook (Claude Code's hook JSON in, its Stop-hook output out): blocks the stop " +
        'with a summary of what is new for the agent (unread events, tasks, decided reviews), or lets it stop. ' +
        'Consumes nothing.',
      query: hookQuery,
      body: hookBody,
      response: hookAnswer,
      handle: async (ctx) => {
        const { ex } = ctx
        const room = roomOf(ctx)
        const q = ctx.query as z.infer<typeof hookQuery>
        const agent = parse(z.object({ agentId }), { agentId: ctx.params.agentId }).agentId
        const fresh = (ctx.body as z.infer<typeof hookBody>).stop_hook_active !== true
        if (!(await deps.core.rooms.exists(room, ex.req.budget))) throw new RoomNotFound(room.roomId)
        if (ex.aborted) return undefined
        const release = q.wait_s > 0 ? deps.openCaps.take(holderOf(ctx.principal!)) : () => {}
        const stop = new AbortController()
        const end = () => stop.abort()
        ex.onAbort(end)
        const undrain = deps.lifecycle.onDrain(end)
        const unhold = deps.keyring.hold(ctx.principal!, end)
        const out =
          q.wait_s > 0
            ? ex.stream(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, 64 * 1024)
            : undefined
        const keepalive = out ? setInterval(() => out.write(' '), KEEPALIVE_MS) : undefined
        let answer: z.infer<typeof hookAnswer> = {}
        try {
          const input = { agent: agent, waitMs: q.wait_s * 1000, mentions: q.mentions === 'true', fresh }
          const report = await deps.wake.look(room, input, stop.signal)
          if (report) answer = { decision: 'block', reason: wakeReason(room.roomId, agent, report) }
        } finally {
          clearInterval(keepalive)
          undrain()
          unhold()
          release()
          // A stream already started can no longer carry an error: it lets the agent stop.
          out?.end(JSON.stringify(answer))
        }
        return out ? undefined : answer
      },
    },
  ]
}
