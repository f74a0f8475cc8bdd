import t from 'tap'
import { Keys, ROOM_KEYS, hashTagOf } from '../../src/store/keys.js'

t.test('every room key and the channel share the room hash tag', async (t) => {
  const keys = new Keys('ar')
  const ref = { teamId: 'tm1', roomId: 'payments-api' }
  const room = keys.room(ref)
  t.equal(room.list.length, ROOM_KEYS.length)
  const vectors = Object.values(keys.vectors(ref))
  t.equal(new Set(vectors).size, 6, 'six vector keys, all different')
  for (const k of [...room.list, keys.lock(ref, 'file:{weird}/name'), keys.searchManifest(ref), ...vectors])
    t.equal(hashTagOf(k), 'r:tm1/payments-api', k)
  t.equal(hashTagOf(keys.teamRooms('tm1')), 't:tm1')
})

t.test('rooms of different teams with the same id do not share keys', async (t) => {
  const keys = new Keys('ar')
  t.not(keys.room({ teamId: 'a', roomId: 'x' }).meta, keys.room({ teamId: 'b', roomId: 'x' }).meta)
})

t.test('hashTagOf follows the Cluster rule', async (t) => {
  t.equal(hashTagOf('plain'), 'plain')
  t.equal(hashTagOf('a{}b'), 'a{}b', 'an empty tag hashes the whole key')
  t.equal(hashTagOf('a{x}{y}'), 'x', 'only the first tag counts')
})
