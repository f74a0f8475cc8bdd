// Helpers of the accounts tests: a key prefix of the test's own (the accounts directory is one
// hash tag per prefix, so tests that share a Redis never see each other's people), and a scan of
// every key and every member on every master for traces of a team or a person.
import { randomBytes } from 'node:crypto'
import { Cluster, type Redis } from 'ioredis'

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
        else if (type === 'hash') parts = Object.entries(await node.hgetallBuffer(key)).flatMap(([f, v]) => [f, v.toString('latin1')])
        else if (type === 'set') parts = await node.smembers(key)
        else if (type === 'zset') parts = await node.zrange(key, 0, -1)
        else if (type === 'stream') parts = (await node.xrangeBuffer(key, '-', '+')).flatMap(([id, f]) => [id.toString(), ...f.map((b) => b.toString('latin1'))])
        const inside = parts.find((p) => hit(p))
        if (inside !== undefined) found.push(`${key}: ${type} holds ${hit(inside)}`)
      }
    } while (cursor !== '0')
  }
  return found
}
