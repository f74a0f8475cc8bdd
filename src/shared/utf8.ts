// Strict UTF-8 for request bodies. Node's decoding replaces each invalid byte sequence with U+FFFD,
// so two different byte strings (an agent id sent as `u\xff\xfe` and one sent as `u\xc0\xaf`)
// would become one string. Every surface decodes bodies here instead and refuses what is not UTF-8,
// naming the byte where it stops being UTF-8.
import { isUtf8 } from 'node:buffer'
import { AppError } from './errors.js'

/** The body as a string, or the offset of its first byte that is not part of well-formed UTF-8. */
export function decodeUtf8(buf: Buffer): { text: string } | { invalidAt: number } {
  if (isUtf8(buf)) return { text: buf.toString('utf8') }
  return { invalidAt: firstInvalid(buf) }
}

/** The index of the first byte that starts no well-formed UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalid(b: Uint8Array): number {
  let i = 0
  while (i < b.length) {
    const c = b[i]!
    if (c < 0x80) {
      i++
      continue
    }
    let n: number
    let lo = 0x80
    let hi = 0xbf
    if (c >= 0xc2 && c <= 0xdf) n = 1
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2
      if (c === 0xe0) lo = 0xa0 // no overlong three-byte forms
      if (c === 0xed) hi = 0x9f // no UTF-16 surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3
      if (c === 0xf0) lo = 0x90 // no overlong four-byte forms
      if (c === 0xf4) hi = 0x8f // nothing past U+10FFFF
    } else return i
    for (let k = 1; k <= n; k++) {
      const d = b[i + k]
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i
    }
    i += n + 1
  }
  return -1
}

/** The words of a refusal: where the body stops being UTF-8 and what to send instead. */
export function invalidUtf8Message(what: string, at: number): string {
  return `${what} is not valid UTF-8 (byte ${at} starts no UTF-8 character); send text encoded as UTF-8`
}

/**
 * Name=value pairs of a form body or a query string, decoded strictly: every percent-decoded name
 * and value must be UTF-8 (URLSearchParams would turn what is not into U+FFFD), else invalid_request
 * naming the field. A `%` that starts no escape stays as it is, as URLSearchParams keeps it.
 */
export function parseUrlEncoded(text: string, what: string): URLSearchParams {
  const out = new URLSearchParams()
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const name = component(eq < 0 ? pair : pair.slice(0, eq), `a field name of ${what}`)
    out.append(name, component(eq < 0 ? '' : pair.slice(eq + 1), name))
  }
  return out
}

function component(s: string, field: string): string {
  if (!s.includes('%')) return s.includes('+') ? s.replace(/\+/g, ' ') : s
  try {
    return decodeURIComponent(s.replace(/\+/g, ' ').replace(/%(?![0-9A-Fa-f]{2})/g, '%25'))
  } catch {
    throw new AppError('invalid_request', `${field}: its percent-escapes are not UTF-8; send it encoded as UTF-8`, {
      field,
    })
  }
}
