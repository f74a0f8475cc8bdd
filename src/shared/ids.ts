// Random identifiers: lowercase base32 (no look-alike characters to mistype in a CLI), for every layer.
import { randomBytes } from 'node:crypto'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'

/** `chars` random base32 characters (5 bits each). */
export function randomBase32(chars: number): string {
  const bytes = randomBytes(chars)
  let out = ''
  for (const b of bytes) out += ALPHABET[b & 31]
  return out
}

/** A random id with a readable prefix, e.g. newId('key') -> "key_3k7mq2xv9ad4". */
export function newId(prefix: string, chars = 12, sep = '_'): string {
  return `${prefix}${sep}${randomBase32(chars)}`
}
