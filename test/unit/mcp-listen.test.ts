// What each room notice means for the resources (src/mcp/listen.ts changeOf): the notices of
// every script that publishes one, as lua/ publishes them, against the resources they change.
import t from 'tap'
import { changeOf } from '../../src/mcp/listen.js'

const at = 1
t.test('notices and the resources they change', async (t) => {
  const cases: [string, Record<string, unknown>, ReturnType<typeof changeOf>][] = [
    [
      'room created (a template fills it)',
      { k: 'room', op: 'created' },
      { plan: true, presence: true, listChanged: true },
    ],
    ['task added', { k: 'task', op: 'added', id: 't1' }, { plan: true }],
    [
      'task overridden (posts an event)',
      { k: 'task', op: 'updated', id: 't1', event_id: '5-2', event: { agent_id: 'bob' } },
      { plan: true, unread: { allBut: 'bob' } },
    ],
    ['review of a task', { k: 'review', op: 'approved', id: 'r1', task: 't1' }, { plan: true }],
    ['review of a context entry', { k: 'review', op: 'requested', id: 'r2' }, {}],
    [
      'context created',
      { k: 'context', op: 'written', type: 'spec', key: 'a', version: 1 },
      {
        context: { type: 'spec', key: 'a' },
        listChanged: true,
      },
    ],
    [
      'context rewritten',
      { k: 'context', op: 'written', type: 'spec', key: 'a', version: 2 },
      {
        context: { type: 'spec', key: 'a' },
      },
    ],
    [
      'context patched',
      { k: 'context', op: 'updated', type: 'spec', key: 'a', version: 3 },
      {
        context: { type: 'spec', key: 'a' },
      },
    ],
    [
      'context deleted',
      { k: 'context', op: 'deleted', type: 'spec', key: 'a', version: 3 },
      {
        context: { type: 'spec', key: 'a' },
        listChanged: true,
      },
    ],
    [
      'event posted',
      { k: 'event', op: 'posted', event_id: '9-4', event: { agent_id: 'ann' } },
      {
        unread: { allBut: 'ann' },
      },
    ],
    ['event read', { k: 'event', op: 'read', agent: 'ann', id: '9-4' }, { unread: { agent: 'ann' } }],
    ['event deleted', { k: 'event', op: 'deleted', id: '9-4' }, { unread: { allBut: undefined } }],
    ['online', { k: 'presence', op: 'online', agent: 'ann' }, { presence: true }],
    [
      'left (posts agent_left)',
      { k: 'presence', op: 'offline', agent: 'ann', event_id: '9-5', event: { agent_id: 'ann' } },
      { presence: true, unread: { allBut: 'ann' } },
    ],
    ['lock', { k: 'lock', op: 'acquired', name: 'db' }, {}],
    ['var', { k: 'var', op: 'set', name: 'x' }, {}],
    ['reservation', { k: 'reservation', op: 'reserved', agent: 'ann', patterns: ['src/**'] }, {}],
  ]
  for (const [what, notice, change] of cases)
    t.same(changeOf({ at, ...notice } as Parameters<typeof changeOf>[0]), change, what)
})
