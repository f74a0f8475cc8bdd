// A change's outcome sealed into the address it redirects to: only the session that made it reads
// it, only on the page it is for, only for FLASH_MS, and an altered one reads as nothing.
import t from 'tap'
import { FLASH_MS, seal, unseal } from '../../src/dashboard/flash.js'

t.test('sealed for one session and one page, for a while', async (t) => {
  const now = 1_800_000_000_000
  const sealed = seal('session-a', '/team/keys', { notice: 'Key key_1 is revoked.' }, now)
  t.match(sealed, /^[A-Za-z0-9_-]+$/, 'URL-safe')
  t.notMatch(Buffer.from(sealed, 'base64url').toString('latin1'), 'key_1', 'not readable in the address')
  t.same(unseal('session-a', '/team/keys', sealed, now + 1000), { notice: 'Key key_1 is revoked.' })
  t.equal(unseal('session-b', '/team/keys', sealed, now), undefined, 'another session')
  t.equal(unseal('session-a', '/team', sealed, now), undefined, 'another page')
  t.equal(unseal('session-a', '/team/keys', sealed, now + FLASH_MS + 1), undefined, 'expired')
  t.equal(unseal(undefined, '/team/keys', sealed, now), undefined, 'signed out')
  const raw = Buffer.from(sealed, 'base64url')
  raw.writeUInt8(raw.readUInt8(raw.length - 1) ^ 1, raw.length - 1)
  t.equal(unseal('session-a', '/team/keys', raw.toString('base64url'), now), undefined, 'altered')
  t.equal(unseal('session-a', '/team/keys', 'short', now), undefined, 'too short')
  t.equal(unseal('session-a', '/team/keys', null, now), undefined, 'absent')
})
