// Where a webhook may be sent: https only, and never to an address inside the service's own
// networks (SSRF). A target's name is resolved at every attempt and every address it resolves to
// is checked; the request then connects to a checked address itself (send.ts), so a DNS answer
// that changes between check and connect (rebinding) cannot redirect it.
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/** Resolves a host name to all its addresses (the system resolver by default; tests inject one). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true })

/** A target the service refuses (bad URL, forbidden or unresolvable address). */
export class TargetError extends Error {
  override readonly name = 'TargetError'
}

/** An address a target's name resolved to. */
export interface Address {
  address: string
  family: 4 | 6
}

/** A checked target: the URL and the addresses the request may connect to. */
export interface Target {
  url: URL
  /** The host name (or address) without brackets: the TLS server name and certificate identity. */
  host: string
  port: number
  /** Every address the name resolved to, in the resolver's order; all of them passed the check. */
  addresses: Address[]
}

export const URL_MAX = 2048

const RANGES: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'a "this network" address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier NAT) address, where some clouds keep metadata'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata lives at 169.254.169.254)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol address'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address'],
  ['192.88.99.0', 24, 'ipv4', 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved or broadcast address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::', 96, 'ipv6', 'an IPv4-compatible address'],
  ['64:ff9b:1::', 48, 'ipv6', 'a local NAT64 address'],
  ['100::', 64, 'ipv6', 'a discard address'],
  ['2001::', 23, 'ipv6', 'an IETF protocol address'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
  ['2002::', 16, 'ipv6', 'a 6to4 address'],
  ['fc00::', 7, 'ipv6', 'a unique local address (cloud metadata lives at fd00:ec2::254)'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a site-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
]

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/** The 16 bytes of an IPv6 address (which isIP has accepted). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!
  const tail: number[] = []
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    tail.push(...dotted[1]!.split('.').map(Number))
    text = text.slice(0, -dotted[1]!.length) + '0:0'
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined]
  const groups = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '') : [])
  const left = groups(head)
  const right = groups(rest)
  const all = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16)
    return [n >> 8, n & 255]
  })
  if (tail.length) bytes.splice(12, 4, ...tail)
  return bytes
}

/**
 * The ways an IPv6 address carries an IPv4 one that some network path may deliver to: bytes that
 * must match (a prefix and an interface-id marker), and where the IPv4 address sits. Every one is
 * checked as the IPv4 address it carries. Ranges that only carry IPv4 (IPv4-compatible ::/96, 6to4,
 * Teredo, local NAT64) are refused whole in RANGES.
 */
const EMBEDDINGS: { match: (b: number[]) => boolean; prefixMatters: boolean }[] = [
  // IPv4-mapped, ::ffff:0:0/96 (RFC 4291)
  { match: (b) => zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff, prefixMatters: false },
  // IPv4-translated, ::ffff:0:0:0/96 (RFC 2765, SIIT)
  { match: (b) => zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(b, 10, 12), prefixMatters: false },
  // NAT64 well-known prefix, 64:ff9b::/96 (RFC 6052)
  {
    match: (b) => b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12),
    prefixMatters: false,
  },
  // ISATAP interface ids under any prefix, ::0:5efe:a.b.c.d and ::200:5efe:a.b.c.d (RFC 5214): the
  // IPv6 prefix is checked as well
  { match: (b) => (b[8] === 0 || b[8] === 2) && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe, prefixMatters: true },
]

function zeros(b: number[], from: number, to: number): boolean {
  return b.slice(from, to).every((x) => x === 0)
}

/** The IPv4 address an IPv6 address carries in its last 32 bits by one of EMBEDDINGS, if any. */
function embeddedIpv4(address: string): { v4: string; prefixMatters: boolean } | undefined {
  const b = ipv6Bytes(address)
  const e = EMBEDDINGS.find((e) => e.match(b))
  return e && { v4: b.slice(12).join('.'), prefixMatters: e.prefixMatters }
}

const BLOCKED = RANGES.map(([net, prefix, type, why]) => {
  const list = new BlockList()
  list.addSubnet(net, prefix, type)
  return { list, type, why }
})

/**
 * Why `address` must not be a webhook target, or undefined when it may be. `allowLoopback`
 * (the test-only WEBHOOK_TEST_LOOPBACK_CA) lets loopback addresses through and nothing else.
 */
export function refusalOf(address: string, allowLoopback = false): string | undefined {
  const family = isIP(address)
  if (family === 0) return 'not an IP address'
  if (family === 6) {
    const embedded = embeddedIpv4(address)
    if (embedded !== undefined) {
      const why = refusalOf(embedded.v4, allowLoopback)
      if (why !== undefined) return `${why} (as ${embedded.v4})`
      if (!embedded.prefixMatters) return undefined
    }
  }
  const type = family === 4 ? 'ipv4' : 'ipv6'
  if (allowLoopback && LOOPBACK.check(address, type)) return undefined
  for (const b of BLOCKED) if (b.type === type && b.list.check(address, type)) return b.why
  return undefined
}

/**
 * Parses and checks the shape of a webhook URL: https, no credentials, no fragment, at most
 * URL_MAX characters. Throws TargetError with a message meant for the user.
 */
export function parseTargetUrl(raw: string): URL {
  if (raw.length > URL_MAX) throw new TargetError(`must be at most ${URL_MAX} characters`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new TargetError('is not a URL')
  }
  if (url.protocol !== 'https:')
    throw new TargetError(`must be an https:// URL (got ${url.protocol}//): webhooks are only sent over TLS`)
  if (url.username !== '' || url.password !== '')
    throw new TargetError('must not carry credentials (user:password@); authenticate deliveries by their signature')
  if (url.hash !== '') throw new TargetError('must not have a #fragment')
  if (url.hostname === '') throw new TargetError('has no host')
  return url
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
}

/**
 * Resolves a URL's host and checks every address it resolves to; returns the target with all of
 * them, in the resolver's order (the request tries the next when one cannot be connected to).
 * One forbidden address refuses the whole name: a name that resolves to a public and a private
 * address is not usable. Throws TargetError.
 */
export async function resolveTarget(
  url: URL,
  opts: { resolve?: Resolver; allowLoopback?: boolean } = {},
): Promise<Target> {
  const host = hostOf(url)
  const port = url.port === '' ? 443 : Number(url.port)
  let answers: { address: string; family: number }[]
  if (isIP(host) !== 0) {
    answers = [{ address: host, family: isIP(host) }]
  } else {
    try {
      answers = await (opts.resolve ?? systemResolver)(host)
    } catch (err) {
      throw new TargetError(
        `host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      )
    }
    if (answers.length === 0) throw new TargetError(`host ${host} does not resolve`)
  }
  for (const a of answers) {
    const why = refusalOf(a.address, opts.allowLoopback)
    if (why !== undefined) {
      const shown = a.address === host ? host : `${host} resolves to ${a.address}, which`
      throw new TargetError(`${shown} is ${why}; webhooks only go to public addresses`)
    }
  }
  const unique = [...new Set(answers.map((a) => a.address))]
  const addresses = unique.map((address): Address => ({ address, family: isIP(address) === 6 ? 6 : 4 }))
  return { url, host, port, addresses }
}
