// Human in the loop: the room page's forms. A signed-in person posts an event or a reply,
// approves or rejects a review, adds or edits a task or sets its dependencies, and writes a context entry — through the
// same room model the agents' tools use, as `human:<name>` (so agents can tell a person apart),
// and each change is recorded in the team's audit trail. Bad input changes nothing and shows the
// room page with the error naming the field.
import { requireRole } from '../auth/permissions.js'
import type { Audit } from '../auth/audit.js'
import type { Core } from '../core/index.js'
import { AppError, RoomNotFound } from '../shared/errors.js'
import type { Caller } from '../core/fields.js'
import { roomId as roomIdField } from '../shared/fields.js'
import { humanId, actorOf, refusal, see, type Reply, type Request } from './page.js'
import type { Confirming, Web } from './web.js'
import { CONFIRM } from './confirm.js'
import { keep, type Kept } from './kept.js'
import { NEEDS_FORM } from './needs.js'

export interface SteerDeps {
  core: Pick<Core, 'events' | 'reviews' | 'plan' | 'context' | 'locks'>
  audit: Pick<Audit, 'record'>
  /** Shows the room page with the refused form kept (pages.ts). */
  roomPage(r: Request, extra: { kept: Kept }, status: number): Promise<Reply>
  /** Shows the team's inbox with the refused form kept (inbox.tsx). */
  inboxPage(r: Request, extra: { kept: Kept }, status: number): Promise<Reply>
}

type Room = { teamId: string; roomId: string }
/**
 * What a change did (for the audit trail), and where the room page shows it afterwards (`open`:
 * task or ctx to open).
 */
type Done = { action: string; target: string; anchor: string; open?: { task: string } | { ctx: string } }
/** A change, made as the signed-in person (`human:<name>`, via their sign-in) in `c.room`. */
type Change = (c: Caller & { room: Room }, form: URLSearchParams) => Promise<Done>

/**
 * Which form of the room page a post came from (kept.tsx): the page shows that one again when
 * refused. Forms of the "what needs you" block (`from=needs`, needs.tsx) are keyed apart from the
 * same forms elsewhere on the page.
 */
export function formKey(path: string, f: URLSearchParams): string {
  const id = (name: string) => (f.get(name) ?? '').trim()
  const from = f.get('from') === 'needs' ? NEEDS_FORM : ''
  if (path === '/room/events') return from + (id('reply_to') ? `reply:${id('reply_to')}` : 'post')
  if (path === '/room/reviews') return `${from}review:${id('review_id')}`
  if (path === '/room/tasks') return from + (id('task_id') ? `task:${id('task_id')}` : 'task')
  if (path === '/room/tasks/dependencies') return `${from}deps:${id('task_id')}`
  if (path === '/room/locks/release') return `${from}lock:${id('name')}`
  return from + path.slice('/room/'.length)
}

/** An optional form field: absent or blank is undefined. */
const opt = (f: URLSearchParams, name: string): string | undefined => {
  const v = f.get(name)
  return v === null || v.trim() === '' ? undefined : v
}

/** What the audit entry of a decision adds when the person decided in place of the named reviewer. */
const overrode = (reviewer: string | undefined) => (reviewer ? `; in place of reviewer ${reviewer}` : '')

/** A form field as the core names it (the core's messages name the field). */
const req = (f: URLSearchParams, name: string): string => f.get(name) ?? ''

export class Steer {
  constructor(private readonly deps: SteerDeps) {}

  register(web: Web): void {
    const core = this.deps.core
    this.on(web, '/room/events', async (caller, f) => {
      const room = caller.room
      const replyTo = opt(f, 'reply_to')
      const { event } = replyTo
        ? await core.events.reply(caller, { event_id: replyTo, text: req(f, 'text'), type: opt(f, 'type') ?? 'answer' })
        : await core.events.post(caller, { type: opt(f, 'type') ?? 'message', text: req(f, 'text') })
      return {
        action: replyTo ? 'replied to event' : 'posted event',
        target: `${event.id} (room ${room.roomId})`,
        anchor: `event-${event.id}`,
      }
    })
    this.on(web, '/room/reviews', async (caller, f) => {
      const room = caller.room
      const decision = f.get('decision')
      if (decision !== 'approve' && decision !== 'reject')
        throw new AppError('invalid_request', 'decision: must be approve or reject', { field: 'decision' })
      const input = { review_id: req(f, 'review_id'), ...(opt(f, 'note') ? { note: opt(f, 'note') } : {}) }
      // A person may decide a review that names an agent as reviewer: an override, said in the
      // review (`overrode`) and in the audit trail.
      const how = { override: true }
      const { review } =
        decision === 'approve'
          ? await core.reviews.approve(caller, input, how)
          : await core.reviews.reject(caller, input, how)
      return {
        action: decision === 'approve' ? 'approved review' : 'rejected review',
        target: `${review.id} (room ${room.roomId}${overrode(review.overrode)})`,
        anchor: 'reviews',
      }
    })
    this.on(web, '/room/tasks', async (caller, f) => {
      const room = caller.room
      const taskId = opt(f, 'task_id')
      if (taskId === undefined) {
        const deps = (opt(f, 'depends_on') ?? '')
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== '')
        const { task } = await core.plan.addTask(caller, {
          title: req(f, 'title'),
          priority: opt(f, 'priority') ?? 'normal',
          depends_on: deps,
          ...(opt(f, 'notes') ? { notes: opt(f, 'notes') } : {}),
        })
        return {
          action: 'added task',
          target: `${task.id} (room ${room.roomId})`,
          anchor: 'open-task',
          open: { task: task.id },
        }
      }
      const patch: Record<string, unknown> = { task_id: taskId }
      for (const k of ['title', 'status', 'priority'] as const) if (opt(f, k) !== undefined) patch[k] = opt(f, k)
      // An assignee field sent empty unassigns, notes sent empty clear them; a field not sent stays.
      if (f.has('assignee')) patch.assignee = (f.get('assignee') ?? '').trim()
      if (f.has('notes')) patch.notes = f.get('notes') ?? ''
      if (f.get('force') === '1') patch.force = true
      // The block's "nobody": a stale task goes back to to do, not in progress with no one.
      if (f.get('from') === 'needs' && patch.assignee === '') patch.status = 'todo'
      const { task } = await core.plan.updateTask(caller, patch)
      return {
        action: 'edited task',
        target: `${task.id} (room ${room.roomId})`,
        anchor: 'open-task',
        open: { task: task.id },
      }
    })
    this.on(web, '/room/tasks/dependencies', async (caller, f) => {
      // The set as the form sends it: the boxes left ticked, the task picked, the ids typed.
      const typedIds = (f.get('more') ?? '').split(/[\s,]+/)
      const ids = [...f.getAll('depends_on'), ...typedIds].map((d) => d.trim()).filter((d) => d !== '')
      const { task, added, removed } = await core.plan.setDependencies(caller, {
        task_id: req(f, 'task_id'),
        depends_on: [...new Set(ids)],
      })
      const change = [
        added.length > 0 ? `added ${added.join(', ')}` : '',
        removed.length > 0 ? `removed ${removed.join(', ')}` : '',
      ].filter((x) => x !== '')
      return {
        action: 'set task dependencies',
        target: `${task.id} (room ${caller.room.roomId}; ${change.length > 0 ? change.join('; ') : 'unchanged'})`,
        anchor: 'open-task',
        open: { task: task.id },
      }
    })
    this.on(
      web,
      '/room/locks/release',
      async (caller, f) => {
        // A person releases a lock in place of its holder (an agent gone offline): only the
        // acquisition the page showed (its token), never one taken since.
        const name = req(f, 'name')
        const token = Number(req(f, 'token'))
        const r = await core.locks.release(caller, { name, token }, { override: true })
        const how = r.released ? `; in place of ${r.holder}` : '; it was free already'
        return {
          action: 'released lock',
          target: `${name} (room ${caller.room.roomId}${how})`,
          anchor: 'locks',
        }
      },
      (r) => {
        const room = r.form.get('room') ?? ''
        const back =
          r.form.get('back') === 'inbox'
            ? `/inbox#needs-${room}`
            : `/room?${new URLSearchParams({ id: room }).toString()}#needs`
        return { ...CONFIRM.releaseLock(r.form.get('name') ?? '', 'its holder'), back }
      },
    )
    this.on(web, '/room/context', async (caller, f) => {
      const room = caller.room
      const { entry } = await core.context.write(caller, {
        type: req(f, 'type'),
        key: req(f, 'key'),
        body: req(f, 'body'),
      })
      return {
        action: 'wrote context',
        target: `${entry.type}/${entry.key} v${entry.version} (room ${room.roomId})`,
        anchor: 'open-context',
        open: { ctx: `${entry.type}/${entry.key}` },
      }
    })
  }

  private on(web: Web, path: string, change: Change, confirm?: Confirming): void {
    web.page('POST', path, true, (r) => this.run(r, change), confirm)
  }

  private async run(r: Request, change: Change): Promise<Reply> {
    const user = r.viewer!.user
    const v = roomIdField.safeParse(r.form.get('room') ?? '')
    if (!v.success) throw new AppError('invalid_request', `room: ${v.error.issues[0]!.message}`, { field: 'room' })
    const room = { teamId: user.team, roomId: v.data }
    const inbox = r.form.get('from') === 'needs' && r.form.get('back') === 'inbox'
    let done
    try {
      requireRole(user.role, 'room.write')
      const via = { kind: 'person' as const, id: user.id, label: user.name || user.email }
      done = await change({ room, agent: humanId(user.name, user.email), via }, r.form)
    } catch (err) {
      const refused = refusal(err)
      if (refused && !(refused instanceof RoomNotFound)) {
        const kept = { kept: keep(formKey(r.ex.req.path, r.form), r.form, refused) }
        return inbox ? this.deps.inboxPage(r, kept, refused.status) : this.deps.roomPage(r, kept, refused.status)
      }
      throw err
    }
    await this.deps.audit.record(user.team, actorOf(user), done.action, done.target)
    // Post/redirect/get: a reload does not post twice. A form of the "what needs you" block goes
    // back to the block it came from (the inbox's, or the room page's).
    if (inbox) return see(`/inbox#needs-${room.roomId}`)
    if (r.form.get('from') === 'needs') return see(`/room?${new URLSearchParams({ id: room.roomId }).toString()}#needs`)
    const at = new URLSearchParams({ id: room.roomId, ...done.open })
    return see(`/room?${at.toString()}#${done.anchor}`)
  }
}
