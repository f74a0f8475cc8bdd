// Helpers of the accounts tests: a key prefix of the test's own (the accounts directory is one
// hash tag per prefix, so tests that share a Redis never see each other's people), and a scan of
// every key and every member on every master for traces of a team or a person; and nodes with an
// operator, signed in or not yet, for the page tests.
import { randomBytes } from 'node:crypto'
import { Cluster, type Redis } from 'ioredis'
import type { Test } from 'tap'
import type { Settings } from '../../src/config.js'
import { Browser, linkIn, startSmtp, type Inbox, type Page } from './mail.js'
import { startNode, type TestNode } from './node.js'
import { uid } from './shared.js'

/** A fresh KEY_PREFIX: the whole accounts directory of one test. */
export function testPrefix(): string {
  return `a${randomBytes(5).toString('hex')}`
}

function mastersOf(raw: Redis | Cluster): Redis[] {
  return raw instanceof Cluster ? raw.nodes('master') : [raw]
}

/**
 * Every key under `prefix` whose name or content mentions any of `needles` (team ids, user ids,
 * addresses, room ids), as "key: where". Reads strings, hashes, sets, sorted sets and streams.
 */
export async function traces(raw: Redis | Cluster, prefix: string, needles: string[]): Promise<string[]> {
  const found: string[] = []
  const hit = (s: string) => needles.find((n) => s.includes(n))
  for (const node of mastersOf(raw)) {
    let cursor = '0'
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500)
      cursor = next
      for (const key of keys) {
        if (hit(key)) {
          found.push(`${key}: name`)
          continue
        }
        const type = await node.type(key)
        let parts: string[] = []
        if (type === 'string') parts = [(await node.getBuffer(key))?.toString('latin1') ?? '']
        else if (type === 'hash')
          parts = Object.entries(await node.hgetallBuffer(key)).flatMap(([f, v]) => [f, v.toString('latin1')])
        else if (type === 'set') parts = await node.smembers(key)
        else if (type === 'zset') parts = await node.zrange(key, 0, -1)
        else if (type === 'stream')
          parts = (await node.xrangeBuffer(key, '-', '+')).flatMap(([id, f]) => [
            id.toString(),
            ...f.map((b) => b.toString('latin1')),
          ])
        const inside = parts.find((p) => hit(p))
        if (inside !== undefined) found.push(`${key}: ${type} holds ${hit(inside)}`)
      }
    } while (cursor !== '0')
  }
  return found
}

/**
 * A node (standalone, accounts of KEY_PREFIX `prefix`, its own, mail to a real SMTP server of the
 * test, `settings` on top) and the address of its operator (ADMIN_EMAILS), not signed in.
 */
export async function operatorNode(
  t: Test,
  settings: Partial<Settings> = {},
): Promise<{ inbox: Inbox; op: string; prefix: string; n: TestNode }> {
  const inbox = await startSmtp(t)
  const op = `${uid('op')}@example.com`
  const prefix = testPrefix()
  const n = await startNode(t, 'standalone', { keyPrefix: prefix, smtpUrl: inbox.url, adminEmails: [op], ...settings })
  return { inbox, op, prefix, n }
}

/**
 * A node (standalone, accounts of a prefix of its own, mail to a real SMTP server of the test)
 * whose operator (ADMIN_EMAILS) has signed in by mailed link: `first` is the page that showed
 * their new team's key once.
 */
export async function signedInOperator(
  t: Test,
  settings: Partial<Settings> = {},
): Promise<{ inbox: Inbox; op: string; n: TestNode; b: Browser; first: Page }> {
  const { inbox, op, n } = await operatorNode(t, settings)
  const b = new Browser(n.base)
  await b.post('/signin', { email: op })
  const first = await b.follow(linkIn(await inbox.next(op)))
  return { inbox, op, n, b, first }
}

/** The user id of the person listed with `email` on a team page (each member's forms carry it). */
export function userIdIn(page: string, email: string): string | undefined {
  const rows = page.split('<tr').slice(1)
  const row = rows.find((r) => r.includes(`>${email}<`))
  return row && /name="user" value="(usr_[^"]+)"/.exec(row)?.[1]
}
