// What would wake an agent that is about to stop (the Stop hooks of coding agents, docs/agents.md):
// its unread events (all, or with `mentions` only those that name it as @agent or reply to one of
// its events), tasks that became ready for it or were assigned to it, and reviews it asked for
// that were decided. It consumes nothing: the agent's read cursor stays where it was, so the agent
// still reads every event with its tools. A look costs a handful of reads; waiting costs no Redis
// connection (it listens to the room's notices on the node's hub).
//
// Newness: tasks and reviews count when they change after the look began (a baseline is read
// first). Unread events count at once on a `fresh` look (the first stop of a turn); on a look that
// is not fresh (the agent was already kept going by a stop hook and stops again) only events that
// arrive after the look began count, so an agent that chose to stop over what it was told is not
// told it again: every further wake-up needs something new.
import type { Core } from '../core/index.js'
import type { Notice, RoomEvent } from '../core/events.js'
import type { TaskItem, ReviewItem } from '../core/compact.js'
import type { Caller } from '../core/fields.js'
import type { RoomRef } from '../store/keys.js'
import type { Hub } from './hub.js'

/** Most unread events one look examines (the latest ones). */
export const WAKE_EVENTS_MAX = 100
/** Longest wait of one look (s). */
export const WAKE_WAIT_MAX_S = 540

export interface WakeInput {
  agent: string
  /** How long to wait for something new when nothing is there at once (ms). */
  waitMs: number
  /** Only events that name the agent (@agent) or reply to one of its events. */
  mentions: boolean
  /** The first stop of a turn: events already unread count. */
  fresh: boolean
}

export interface WakeReport {
  /** The relevant unread events, oldest first (at most WAKE_EVENTS_MAX examined). */
  events: Pick<RoomEvent, 'id' | 'type' | 'agent_id' | 'reply_to'>[]
  /** Of those, the ones that name the agent or answer it. */
  mentions: number
  /** Everything unread for the agent, relevant or not. */
  unread: number
  /** Tasks newly assigned to the agent or newly ready for it. */
  tasks: TaskItem[]
  /** Reviews the agent asked for that were decided. */
  reviews: ReviewItem[]
}

export interface WakeDeps {
  core: { events: Pick<Core['events'], 'peekUnread' | 'read' | 'reads'> } & {
    plan: Pick<Core['plan'], 'myTasks' | 'unblockedTasks'>
    reviews: Pick<Core['reviews'], 'list'>
  }
  hub: Pick<Hub, 'listen' | 'whenSubscribed'>
}

/** A stream id's parts, for ordering ids ("<ms>-<seq>"). */
function after(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number) as [number, number]
  const [bm, bs] = b.split('-').map(Number) as [number, number]
  return am > bm || (am === bm && as > bs)
}

/** A regex that finds "@agent" as a whole word (not "@agents" or "@agent-2"). */
function mentionOf(agent: string): RegExp {
  return new RegExp(`(^|[^\\w@])@${agent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`)
}

interface Baseline {
  /** Ids of tasks assigned to the agent, and of tasks ready for it. */
  assigned: Set<string>
  ready: Set<string>
  decided: Set<string>
  /** The newest event at the start (none: the room had none). */
  head: string | undefined
}

export class Wake {
  constructor(private readonly deps: WakeDeps) {}

  /**
   * Looks for what is new for the agent; waits up to `waitMs` when nothing is, and resolves with
   * the report, or undefined when nothing came (or `signal` aborted).
   */
  async look(room: RoomRef, input: WakeInput, signal: AbortSignal): Promise<WakeReport | undefined> {
    const caller: Caller = { room, agent: input.agent }
    let wake: (() => void) | undefined
    let pending = false
    const unlisten = this.deps.hub.listen(room, (n: Notice) => {
      if (n.k !== 'event' && n.k !== 'task' && n.k !== 'review' && n.event_id === undefined) return
      pending = true
      wake?.()
    })
    try {
      await this.deps.hub.whenSubscribed(room)
      const base = await this.baseline(caller)
      const deadline = Date.now() + input.waitMs
      for (;;) {
        pending = false
        const report = await this.news(caller, input, base)
        if (report) return report
        const left = deadline - Date.now()
        if (left <= 0 || signal.aborted) return undefined
        if (!pending) {
          const woke = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => done(false), left)
            const onAbort = () => done(false)
            function done(v: boolean) {
              clearTimeout(timer)
              signal.removeEventListener('abort', onAbort)
              wake = undefined
              resolve(v)
            }
            wake = () => done(true)
            signal.addEventListener('abort', onAbort, { once: true })
          })
          if (signal.aborted) return undefined
          // At the deadline, one last look (a lost notice costs latency, never a wake-up).
          if (!woke) return await this.news(caller, input, base)
        }
      }
    } finally {
      unlisten()
    }
  }

  private async baseline(c: Caller): Promise<Baseline> {
    const [tasks, latest] = await Promise.all([this.tasks(c), this.deps.core.events.read(c, { limit: 1 })])
    return { ...tasks, head: latest.events.at(-1)?.id }
  }

  private async tasks(c: Caller) {
    const [mine, ready, reviews] = await Promise.all([
      this.deps.core.plan.myTasks(c, { limit: 200 }),
      this.deps.core.plan.unblockedTasks(c, { limit: 200 }),
      this.deps.core.reviews.list(c, { requested_by: c.agent, limit: 200 }),
    ])
    const readyItems = [...ready.tasks, ...mine.tasks.filter((t) => t.status === 'todo' && !t.blocked_by)]
    return {
      assigned: new Set(mine.tasks.map((t) => t.id)),
      ready: new Set(readyItems.map((t) => t.id)),
      decided: new Set(reviews.reviews.filter((r) => r.status !== 'pending').map((r) => r.id)),
      items: new Map([...mine.tasks, ...ready.tasks].map((t) => [t.id, t])),
      reviewItems: reviews.reviews.filter((r) => r.status !== 'pending'),
    }
  }

  /** What is new against the baseline; undefined when nothing is. */
  private async news(c: Caller, input: WakeInput, base: Baseline): Promise<WakeReport | undefined> {
    const [now, unread] = await Promise.all([this.tasks(c), this.deps.core.events.peekUnread(c)])
    const tasks = [...now.items.values()].filter(
      (t) => (now.assigned.has(t.id) && !base.assigned.has(t.id)) || (now.ready.has(t.id) && !base.ready.has(t.id)),
    )
    const reviews = now.reviewItems.filter((r) => !base.decided.has(r.id))
    const events = unread > 0 ? await this.relevantEvents(c, input, base, unread) : { list: [], mentions: 0 }
    if (events.list.length === 0 && tasks.length === 0 && reviews.length === 0) return undefined
    return { events: events.list, mentions: events.mentions, unread, tasks, reviews }
  }

  /** The latest `unread` events (those after the agent's cursor), filtered; consumes nothing. */
  private async relevantEvents(c: Caller, input: WakeInput, base: Baseline, unread: number) {
    const limit = Math.min(unread, WAKE_EVENTS_MAX)
    const page = await this.deps.core.events.read(c, { limit })
    const own = input.agent
    let list = page.events.filter((e) => e.agent_id !== own)
    if (!input.fresh && base.head !== undefined) list = list.filter((e) => after(e.id, base.head!))
    const mention = mentionOf(own)
    const parents = new Map(page.events.map((e) => [e.id, e.agent_id]))
    const answersMe = async (e: RoomEvent) => {
      if (e.reply_to === undefined) return false
      let author = parents.get(e.reply_to)
      if (author === undefined) {
        author = await this.deps.core.events
          .reads(c, { event_id: e.reply_to })
          .then((r) => r.author)
          .catch(() => undefined)
        parents.set(e.reply_to, author ?? '')
      }
      return author === own
    }
    const flagged = await Promise.all(list.map(async (e) => mention.test(e.text) || (await answersMe(e))))
    const mentions = flagged.filter(Boolean).length
    if (input.mentions) list = list.filter((_, i) => flagged[i])
    return {
      list: list.map((e) => ({
        id: e.id,
        type: e.type,
        agent_id: e.agent_id,
        ...(e.reply_to === undefined ? {} : { reply_to: e.reply_to }),
      })),
      mentions: input.mentions ? list.length : mentions,
    }
  }
}

/**
 * The instruction a blocked stop gives the agent: what is new, in a line, and which tool to call.
 * It names ids, authors and counts, never the text of events: what other agents wrote reaches the
 * agent through its tools, not as an instruction.
 */
export function wakeReason(room: string, agent: string, r: WakeReport): string {
  const parts: string[] = []
  if (r.events.length > 0) {
    const by = [...new Set(r.events.map((e) => e.agent_id))].slice(0, 5).join(', ')
    const named = r.mentions > 0 ? ` (${r.mentions} naming you or answering you)` : ''
    parts.push(`${r.events.length} new event${r.events.length === 1 ? '' : 's'} from ${by}${named}`)
  }
  if (r.tasks.length > 0) {
    const list = r.tasks
      .slice(0, 5)
      .map((t) => `${t.id} (${t.status}${t.assignee === agent ? ', yours' : ''})`)
      .join(', ')
    parts.push(`task${r.tasks.length === 1 ? '' : 's'} ready or assigned to you: ${list}`)
  }
  if (r.reviews.length > 0) {
    const list = r.reviews
      .slice(0, 5)
      .map((x) => `${x.id} ${x.status}${x.decided_by ? ` by ${x.decided_by}` : ''}`)
      .join(', ')
    parts.push(`review${r.reviews.length === 1 ? '' : 's'} you asked for decided: ${list}`)
  }
  return (
    `agentrooms: room ${JSON.stringify(room)} has news for agent ${JSON.stringify(agent)}: ${parts.join('; ')}. ` +
    `Call get_my_summary with room_id ${JSON.stringify(room)} and agent_id ${JSON.stringify(agent)} to read it, ` +
    'act on what concerns you, then stop again.'
  )
}
