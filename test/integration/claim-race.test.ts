// 50 agents race to claim 20 unblocked tasks: every task is claimed exactly once, and every loser
// is told who holds the task it lost.
import t from 'tap'
import { newRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'
import { AppError } from '../../src/shared/errors.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const room = await newRoom(t, backend)
    const { plan } = room.core
    for (let i = 0; i < 20; i++) await plan.addTask(room.as('planner'), { title: `task ${i}` })
    const agents = Array.from({ length: 50 }, (_, i) => `agent-${i}`)
    // Every agent tries every task in its own rotated order, all agents concurrently.
    const wins = new Map<string, string[]>()
    const losses: { task: string; agent: string; holder: string }[] = []
    await Promise.all(
      agents.map(async (agent, a) => {
        for (let k = 0; k < 20; k++) {
          const task = `t${((a + k) % 20) + 1}`
          try {
            await plan.updateTask(room.as(agent), { task_id: task, status: 'in_progress' })
            wins.set(task, [...(wins.get(task) ?? []), agent])
          } catch (err) {
            if (!(err instanceof AppError) || err.code !== 'conflict') throw err
            losses.push({ task, agent, holder: String(err.details?.holder) })
          }
        }
      }),
    )
    t.equal(wins.size, 20, 'every task was claimed')
    for (const [task, winners] of wins) t.equal(winners.length, 1, `${task} was claimed exactly once`)
    t.equal(losses.length, 50 * 20 - 20)
    const holders = new Map([...wins].map(([task, w]) => [task, w[0]]))
    t.ok(
      losses.every((l) => l.holder === holders.get(l.task)),
      'every loser was told the real holder',
    )
    const final = await plan.readPlan(room.as('planner'))
    for (const task of final.tasks) t.equal(task.assignee, holders.get(task.id), `${task.id} is held by its one winner`)
  })
}
