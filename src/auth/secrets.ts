// Key secrets: format, minting, hashing and parsing. A key reads
//   ar_team_<teamId>.<secret>      team key
//   ar_room_<teamId>.<secret>      room invite key
// where <secret> is 32 base64url characters (192 random bits). The team id in the key tells the
// node where to look (the team's hash tag) without a global index; the secret itself is stored
// only as its SHA-256. A truncated or altered key hashes to nothing stored and is refused.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export type KeyKind = 'team' | 'room'

const PREFIX: Record<KeyKind, string> = { team: 'ar_team_', room: 'ar_room_' }
const SECRET_CHARS = 32
const SHAPE = /^ar_(team|room)_([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.([A-Za-z0-9_-]{32})$/

export interface ParsedKey {
  kind: KeyKind
  teamId: string
  /** SHA-256 of the whole key, hex: the only form the service stores. */
  hash: string
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** A new key of `kind` for `teamId`; the full text is shown to its owner once. */
export function mintKey(kind: KeyKind, teamId: string): { key: string; hash: string; hint: string } {
  const secret = randomBytes(24).toString('base64url')
  if (secret.length !== SECRET_CHARS) throw new Error('unexpected secret length')
  const key = `${PREFIX[kind]}${teamId}.${secret}`
  return { key, hash: hashKey(key), hint: key.slice(-4) }
}

/** Parses a presented key; undefined when it does not have the shape of one. */
export function parseKey(key: string): ParsedKey | undefined {
  const m = SHAPE.exec(key)
  if (!m) return undefined
  return { kind: m[1] as KeyKind, teamId: m[2]!, hash: hashKey(key) }
}

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}
