// The tool matrix: good arguments of every tool, and the room they act on. Run in this order in a
// room made by matrixRoom, each call succeeds (mutations with an idempotency key may repeat).
import type { TestNode } from './node.js'

export type Args = Record<string, unknown>

/** Ids in the matrix room that the good calls act on. */
export interface MatrixRefs {
  eventId: string
  ownEventId: string
  reviewA: string
  reviewB: string
}

/** Good arguments of every tool beyond room_id / agent_id, in the order the matrix calls them. */
export function goodArgs(refs: MatrixRefs): [string, Args][] {
  return [
    ['list_templates', {}],
    ['list_rooms', {}],
    ['create_room_from_template', { template: 'blank' }],
    ['heartbeat', {}],
    ['get_presence', {}],
    ['get_room_info', {}],
    ['read_plan', {}],
    ['add_task', { title: 'added by the matrix' }],
    ['get_task', { task_id: 't1' }],
    ['update_task', { task_id: 't1', notes: 'noted' }],
    ['get_unblocked_tasks', {}],
    ['claim_next_task', {}],
    ['get_my_tasks', {}],
    ['set_task_priority', { task_id: 't1', priority: 'high' }],
    ['add_dependency', { task_id: 't2', depends_on: 't1' }],
    ['delete_task', { task_id: 't3' }],
    ['write_context', { type: 'spec', key: 'matrix', body: 'first' }],
    ['read_context', { type: 'spec', key: 'api' }],
    ['update_context', { type: 'spec', key: 'api', append: ' more' }],
    ['list_context', {}],
    ['get_context_history', { type: 'spec', key: 'api' }],
    ['diff_context', { type: 'spec', key: 'api', from_version: 1 }],
    ['delete_context', { type: 'spec', key: 'gone' }],
    ['post_event', { type: 'status', text: 'from the matrix' }],
    ['read_events', {}],
    ['get_event_reads', { event_id: refs.eventId }],
    ['mark_event_read', { event_id: refs.eventId }],
    ['reply_to_event', { event_id: refs.eventId, text: 'answered' }],
    ['delete_event', { event_id: refs.ownEventId }],
    ['get_unread_events', {}],
    ['get_my_summary', {}],
    ['wait_for_events', { timeout_s: 1 }],
    ['acquire_lock', { name: 'file:matrix' }],
    ['release_lock', { name: 'file:matrix' }],
    // After the release: a held lock is listed with its seconds left, counted from each call's
    // own clock, so a pair of calls straddling a whole second would differ.
    ['list_locks', {}],
    // Reserved, then released: a live reservation is listed with its seconds left, like a lock.
    ['reserve_files', { patterns: ['src/matrix/**'], reason: 'the matrix' }],
    ['release_files', { patterns: ['src/matrix/**'] }],
    ['list_reservations', {}],
    ['set_shared_var', { name: 'build.status', value: 'green' }],
    ['get_shared_var', { name: 'build.status' }],
    ['list_shared_vars', {}],
    ['request_review', { target: { kind: 'task', task_id: 't1' } }],
    ['approve', { review_id: refs.reviewA }],
    ['reject', { review_id: refs.reviewB }],
    ['list_reviews', {}],
    ['search', { query: 'matrix' }],
    ['get_room_analytics', {}],
    ['leave_room', {}],
  ]
}

/**
 * A room of team `teamId` holding what the good calls act on (agent `agent` calls them): three
 * tasks, two context entries, events by a peer and by the agent, two reviews the agent decides,
 * and a room invite key made with the team key `key`.
 */
export async function matrixRoom(
  n: TestNode,
  teamId: string,
  key: string,
): Promise<{ room: string; invite: string; refs: MatrixRefs }> {
  const core = n.node.core
  const room = (await core.rooms.create(teamId, { template: 'blank' }, 'test')).room.room_id
  const caller = { room: { teamId, roomId: room }, agent: 'agent' }
  const peer = { room: { teamId, roomId: room }, agent: 'peer' }
  for (const title of ['one', 'two', 'three']) await core.plan.addTask(caller, { title })
  await core.context.write(caller, { type: 'spec', key: 'api', body: 'v1' })
  await core.context.write(caller, { type: 'spec', key: 'gone', body: 'soon' })
  const fromPeer = (await core.events.post(peer, { type: 'question', text: 'anyone?' })) as { event: { id: string } }
  const own = (await core.events.post(caller, { type: 'status', text: 'mine' })) as { event: { id: string } }
  await core.events.post(peer, { type: 'status', text: 'unread for agent' })
  const review = async () =>
    (
      (await core.reviews.request(peer, { target: { kind: 'task', task_id: 't2' }, reviewer: 'agent' })) as {
        review: { id: string }
      }
    ).review.id
  const invite = (await (
    await n.call(`/admin/rooms/${room}/invite`, { method: 'POST', key, json: { label: 'matrix' } })
  ).json()) as { key: string }
  return {
    room,
    invite: invite.key,
    refs: { eventId: fromPeer.event.id, ownEventId: own.event.id, reviewA: await review(), reviewB: await review() },
  }
}
