// A room's manifest against its listing (src/search/manifest.ts): what a sync writes and deletes,
// and the `r:` fields a node leaves when it wrote without being sure of its lease: written again
// when their record exists (tasks and context entries; an event's text never changes), deleted
// when it is gone, whatever the other fields say; and the fields removed once that is done.
import t from 'tap'
import { diffManifest, redoChange } from '../../src/search/manifest.js'
import type { RoomListing } from '../../src/search/records.js'

function listingOf(stored: Record<string, string>): RoomListing {
  return {
    cseq: 9,
    createdAt: 1,
    trim: 2,
    eseq: 6,
    tasks: new Map([
      ['t1', 100],
      ['t2', 200],
    ]),
    context: new Map([['spec/api', 3]]),
    evdel: new Set([5]),
    stored: new Map(Object.entries({ room: '1', pos: '8', ...stored })),
  }
}

t.test('in step: nothing to write or delete', async (t) => {
  t.same(diffManifest(listingOf({ 't:t1': '100', 't:t2': '200', 'c:spec/api': '3', 'e:4': '10-4' })), {
    tasks: [],
    context: [],
    deleteKeys: [],
    delFields: [],
  })
})

t.test('changed, new and gone records', async (t) => {
  const d = diffManifest(
    listingOf({ 't:t1': '99', 't:t9': '5', 'c:spec/old': '1', 'e:1': '10-1', 'e:5': '10-5', 'e:6': '10-6' }),
  )
  t.same(d.tasks, ['t1', 't2'], 'a task whose stamp differs, and one not in the index')
  t.same(d.context, ['spec/api'])
  t.same(
    d.deleteKeys.sort(),
    ['context:spec/old', 'event:10-1', 'event:10-5', 'task:t9'],
    'gone: a task, an entry, a trimmed event, a deleted event',
  )
  t.same(d.delFields.sort(), ['c:spec/old', 'e:1', 'e:5', 't:t9'])
})

t.test('documents left to write again: written from the room, or deleted when gone', async (t) => {
  const inStep = { 't:t1': '100', 't:t2': '200', 'c:spec/api': '3', 'e:4': '10-4' }
  const redo = redoChange([
    'task:t1',
    'task:t7',
    'context:spec/api',
    'context:spec/gone',
    'event:10-4',
    'event:10-5',
    'event:10-1',
  ]).set
  const d = diffManifest(listingOf({ ...inStep, ...redo }))
  t.same(d.tasks, ['t1'], 'a task in step by its stamp is written again')
  t.same(d.context, ['spec/api'], 'so is a context entry')
  t.same(
    d.deleteKeys.sort(),
    ['context:spec/gone', 'event:10-1', 'event:10-5', 'task:t7'],
    'records gone since are deleted, events among them',
  )
  t.same(
    d.delFields.sort(),
    Object.keys(redo).sort(),
    'every r: field goes once the sync is done; an event that exists needs nothing',
  )
})

t.test('the change a late write leaves: its documents to write again, and no position', async (t) => {
  t.same(redoChange(['task:t1', 'event:10-4']), { set: { 'r:task:t1': '1', 'r:event:10-4': '1' }, del: ['pos'] })
})
