// Reviews on real Redis, standalone and cluster: requests on tasks and context entries, the task's
// status moves, who may decide, pending-only decisions, limits and list filters.
import t from 'tap'
import { newRoom, type TestRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

/** A task claimed by `agent` (in_progress); returns its id. */
async function claimedTask(room: TestRoom, agent: string, title = 'work'): Promise<string> {
  const { task } = await room.core.plan.addTask(room.as('planner'), { title })
  await room.core.plan.updateTask(room.as(agent), { task_id: task.id, status: 'in_progress' })
  return task.id
}

const taskOf = async (room: TestRoom, id: string) => (await room.core.plan.getTask(room.as('x'), { task_id: id })).task

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('task review approved: in_progress -> in_review -> done', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews } = room.core
      const id = await claimedTask(room, 'alice')
      const req = await reviews.request(room.as('alice'), {
        target: { kind: 'task', task_id: id },
        note: 'ready: see PR 12',
      })
      t.match(req.review, {
        id: 'r1',
        target: { kind: 'task', task_id: id },
        requested_by: 'alice',
        status: 'pending',
        note: 'ready: see PR 12',
      })
      t.notOk('reviewer' in req.review)
      t.match(req.review.created_at, /^\d{4}-\d\d-\d\dT/)
      t.equal(req.task_status, 'in_review')
      t.equal(typeof req.unread, 'number')
      t.match(await taskOf(room, id), { status: 'in_review', assignee: 'alice', updated_by: 'alice' })

      const ok = await reviews.approve(room.as('bob'), { review_id: 'r1', note: 'lgtm' })
      t.match(ok.review, {
        id: 'r1',
        status: 'approved',
        decided_by: 'bob',
        decision_note: 'lgtm',
        note: 'ready: see PR 12',
      })
      t.match(ok.review.decided_at, /^\d{4}-\d\d-\d\dT/)
      t.equal(ok.task_status, 'done')
      t.match(await taskOf(room, id), { status: 'done', assignee: 'alice' })

      await t.rejects(reviews.approve(room.as('carol'), { review_id: 'r1' }), {
        code: 'conflict',
        details: { field: 'review_id', status: 'approved', decided_by: 'bob' },
        message: /already approved by bob/,
      })
      await t.rejects(reviews.reject(room.as('carol'), { review_id: 'r1' }), {
        code: 'conflict',
        details: { status: 'approved' },
      })
      t.match(
        (await reviews.list(room.as('x'))).reviews[0],
        { status: 'approved', decided_by: 'bob' },
        'refused decisions changed nothing',
      )
    })

    t.test('task review rejected: back to in_progress, assignee kept; reviewer rules', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews } = room.core
      const id = await claimedTask(room, 'alice')
      await reviews.request(room.as('alice'), { target: { kind: 'task', task_id: id }, reviewer: 'carol' })
      await t.rejects(reviews.approve(room.as('bob'), { review_id: 'r1' }), {
        code: 'forbidden',
        details: { field: 'agent_id', reviewer: 'carol' },
        message: /only carol may decide/,
      })
      await t.rejects(reviews.reject(room.as('alice'), { review_id: 'r1' }), { code: 'forbidden' })
      t.match((await reviews.list(room.as('x'))).reviews[0], { status: 'pending' }, 'refused decisions changed nothing')
      t.equal((await taskOf(room, id)).status, 'in_review')

      const no = await reviews.reject(room.as('carol'), { review_id: 'r1', note: 'tests missing' })
      t.match(no.review, { status: 'rejected', decided_by: 'carol', decision_note: 'tests missing', reviewer: 'carol' })
      t.equal(no.task_status, 'in_progress')
      t.match(await taskOf(room, id), { status: 'in_progress', assignee: 'alice' })
    })

    t.test('the requester may not decide their own review', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews } = room.core
      const id = await claimedTask(room, 'alice')
      await reviews.request(room.as('alice'), { target: { kind: 'task', task_id: id } })
      await t.rejects(reviews.approve(room.as('alice'), { review_id: 'r1' }), {
        code: 'forbidden',
        details: { field: 'agent_id', requested_by: 'alice' },
        message: /alice requested review r1 and may not decide it/,
      })
      t.equal((await taskOf(room, id)).status, 'in_review', 'the refused approval changed nothing')
      await t.rejects(reviews.request(room.as('alice'), { target: { kind: 'task', task_id: id }, reviewer: 'alice' }), {
        code: 'invalid_request',
        details: { field: 'reviewer' },
      })
      t.equal((await reviews.list(room.as('x'))).total, 1)
    })

    t.test('only a task in review moves', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews, plan } = room.core
      const { task } = await plan.addTask(room.as('planner'), { title: 'todo one' })
      const req = await reviews.request(room.as('planner'), { target: { kind: 'task', task_id: task.id } })
      t.equal(req.task_status, 'todo')
      const ok = await reviews.approve(room.as('bob'), { review_id: req.review.id })
      t.equal(ok.task_status, 'todo', 'approving does not finish a task that was never in review')
      t.equal((await taskOf(room, task.id)).status, 'todo')
    })

    t.test('deleting a task or a context entry removes its pending reviews, in the same script', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews, plan, context } = room.core
      const id = await claimedTask(room, 'alice')
      const other = await claimedTask(room, 'carol')
      const decided = await reviews.request(room.as('alice'), { target: { kind: 'task', task_id: id } })
      await reviews.reject(room.as('bob'), { review_id: decided.review.id, note: 'not yet' })
      const pending = await reviews.request(room.as('alice'), {
        target: { kind: 'task', task_id: id },
        reviewer: 'bob',
      })
      const kept = await reviews.request(room.as('carol'), { target: { kind: 'task', task_id: other } })
      const del = await plan.deleteTask(room.as('planner'), { task_id: id })
      t.same(del.reviews_removed, [pending.review.id], 'the pending review of the task is removed and named')
      await t.rejects(
        reviews.approve(room.as('bob'), { review_id: pending.review.id }),
        { code: 'not_found' },
        'nobody is left asked to review nothing',
      )
      const left = (await reviews.list(room.as('x'))).reviews.map((r) => r.id)
      t.same(left.sort(), [decided.review.id, kept.review.id].sort(), "the decided review and another task's stay")

      await context.write(room.as('alice'), { type: 'spec', key: 'api', body: 'v1' })
      await context.write(room.as('alice'), { type: 'spec', key: 'db', body: 'v1' })
      const onApi = await reviews.request(room.as('alice'), { target: { kind: 'context', type: 'spec', key: 'api' } })
      const onDb = await reviews.request(room.as('alice'), { target: { kind: 'context', type: 'spec', key: 'db' } })
      const gone = await context.delete(room.as('alice'), { type: 'spec', key: 'api' })
      t.same(gone.reviews_removed, [onApi.review.id])
      t.ok(
        (await reviews.list(room.as('x'))).reviews.some((r) => r.id === onDb.review.id),
        "the other entry's review stays",
      )
      t.same((await plan.deleteTask(room.as('planner'), { task_id: other })).reviews_removed, [kept.review.id])
    })

    t.test('context target', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews, context } = room.core
      await context.write(room.as('alice'), { type: 'spec', key: 'api/v1', body: '# API' })
      const req = await reviews.request(room.as('alice'), {
        target: { kind: 'context', type: 'spec', key: 'api/v1' },
        reviewer: 'bob',
      })
      t.match(req.review, {
        id: 'r1',
        target: { kind: 'context', type: 'spec', key: 'api/v1' },
        reviewer: 'bob',
        status: 'pending',
      })
      t.notOk('task_status' in req)
      const ok = await reviews.approve(room.as('bob'), { review_id: 'r1' })
      t.match(ok.review, { status: 'approved', decided_by: 'bob' })
      t.notOk('decision_note' in ok.review)
    })

    t.test('missing targets and bad input name the field', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews } = room.core
      const as = room.as('alice')
      await t.rejects(reviews.request(as, { target: { kind: 'task', task_id: 't99' } }), {
        code: 'not_found',
        details: { field: 'target.task_id' },
        message: /task t99 does not exist/,
      })
      await t.rejects(reviews.request(as, { target: { kind: 'context', type: 'spec', key: 'nope' } }), {
        code: 'not_found',
        details: { field: 'target.key' },
        message: /context entry spec\/nope does not exist/,
      })
      await t.rejects(reviews.request(as, { target: { kind: 'file', path: 'x' } }), {
        code: 'invalid_request',
        message: /^target/,
      })
      await t.rejects(reviews.request(as, { target: { kind: 'task', task_id: '7' } }), {
        code: 'invalid_request',
        details: { field: 'target.task_id' },
      })
      await t.rejects(reviews.request(as, { target: { kind: 'context', type: 'Spec!', key: 'k' } }), {
        code: 'invalid_request',
        details: { field: 'target.type' },
      })
      await t.rejects(reviews.request(as, {}), { code: 'invalid_request', message: /^target/ })
      await t.rejects(reviews.request(room.as(), { target: { kind: 'task', task_id: 't1' } }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
      await room.core.plan.addTask(as, { title: 'x' })
      await t.rejects(reviews.request(as, { target: { kind: 'task', task_id: 't1' }, note: 'é'.repeat(1001) }), {
        code: 'too_large',
        details: { field: 'note', limit: 2000, size: 2002 },
      })
      await t.rejects(reviews.approve(room.as('bob'), { review_id: 'r9' }), {
        code: 'not_found',
        details: { field: 'review_id' },
      })
      await t.rejects(reviews.approve(room.as('bob'), { review_id: 'x' }), {
        code: 'invalid_request',
        details: { field: 'review_id' },
      })
      await t.rejects(reviews.reject(room.as(), { review_id: 'r1' }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
      await t.rejects(reviews.list(as, { status: 'open' }), { code: 'invalid_request', details: { field: 'status' } })
      await t.rejects(reviews.list(as, { limit: 201 }), { code: 'invalid_request', details: { field: 'limit' } })
      t.equal((await reviews.list(as)).total, 0, 'nothing was created')
    })

    t.test('reviews-per-room limit', async (t) => {
      const room = await newRoom(t, backend, { settings: { reviewsPerRoom: 2 } })
      const { reviews } = room.core
      await room.core.plan.addTask(room.as('p'), { title: 'x' })
      const target = { kind: 'task', task_id: 't1' }
      await reviews.request(room.as('a'), { target })
      await reviews.request(room.as('b'), { target })
      await t.rejects(reviews.request(room.as('c'), { target }), {
        code: 'limit_reached',
        details: { field: 'reviews', limit: 2 },
        message: /reviews-per-room limit is 2/,
      })
      t.equal((await reviews.list(room.as('x'))).total, 2, 'the refused request changed nothing')
    })

    t.test('list filters, newest first', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews, plan, context } = room.core
      await plan.addTask(room.as('p'), { title: 'one' })
      await plan.addTask(room.as('p'), { title: 'two' })
      await context.write(room.as('p'), { type: 'brief', key: 'product', body: 'b' })
      await reviews.request(room.as('alice'), { target: { kind: 'task', task_id: 't1' }, reviewer: 'bob' }) // r1
      await reviews.request(room.as('alice'), { target: { kind: 'task', task_id: 't2' } }) // r2
      await reviews.request(room.as('carol'), {
        target: { kind: 'context', type: 'brief', key: 'product' },
        reviewer: 'bob',
      }) // r3
      await reviews.request(room.as('carol'), { target: { kind: 'task', task_id: 't1' } }) // r4
      await reviews.approve(room.as('bob'), { review_id: 'r1' })
      await reviews.reject(room.as('dave'), { review_id: 'r2' })

      const ids = async (input: Record<string, unknown>) =>
        (await reviews.list(room.as('x'), input)).reviews.map((r) => r.id)
      t.same(await ids({}), ['r4', 'r3', 'r2', 'r1'])
      t.same(await ids({ status: 'pending' }), ['r4', 'r3'])
      t.same(await ids({ status: 'approved' }), ['r1'])
      t.same(await ids({ reviewer: 'bob' }), ['r3', 'r1'])
      t.same(await ids({ requested_by: 'carol' }), ['r4', 'r3'])
      t.same(await ids({ target_kind: 'context' }), ['r3'])
      t.same(await ids({ target_kind: 'task', status: 'pending' }), ['r4'])
      t.same(await ids({ task_id: 't1' }), ['r4', 'r1'])
      t.same(await ids({ reviewer: 'nobody' }), [])
      const page = await reviews.list(room.as('x'), { limit: 2 })
      t.same(
        page.reviews.map((r) => r.id),
        ['r4', 'r3'],
      )
      t.equal(page.total, 4, 'total counts every match before the limit')
    })

    t.test('idempotent request', async (t) => {
      const room = await newRoom(t, backend)
      const { reviews } = room.core
      const id = await claimedTask(room, 'alice')
      const first = await reviews.request(room.as('alice', 'rq-1'), { target: { kind: 'task', task_id: id } })
      const again = await reviews.request(room.as('alice', 'rq-1'), { target: { kind: 'task', task_id: id } })
      t.same(again.review, first.review)
      t.equal((await reviews.list(room.as('x'))).total, 1)
    })
  })
}
