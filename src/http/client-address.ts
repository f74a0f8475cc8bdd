// The client's address behind trusted proxies, for every per-client limit (the sign-in pages').
// The socket address is the client's unless the operator says which proxies to trust, by hop count
// (TRUSTED_PROXY_HOPS: that many proxies in front, each appending to X-Forwarded-For) or by
// address (TRUSTED_PROXY_CIDRS: peers and X-Forwarded-For entries inside these ranges are proxies).
// The client is then the right-most address not added by a trusted proxy: what a client writes
// into X-Forwarded-For itself sits left of that and is never believed. Limits count an IPv6
// client by its /64, the block one subscriber usually holds, so rotating addresses within it
// gains nothing.
import { BlockList, isIP } from 'node:net'

export interface ProxyTrust {
  /** How many proxies stand in front of the node (0: none, the socket address is the client's). */
  hops: number
  /** Address ranges of trusted proxies ("10.0.0.0/8", "fd00::/8", a lone address). */
  cidrs: readonly string[]
}

/** Why a range of TRUSTED_PROXY_CIDRS is not one, or undefined when it is. */
export function cidrProblem(range: string): string | undefined {
  const [addr, bits, extra] = range.split('/')
  const family = isIP(addr ?? '')
  if (family === 0 || extra !== undefined) return `"${range}" is not an address or an address/prefix range`
  if (bits === undefined) return undefined
  const max = family === 4 ? 32 : 128
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return `"${range}": the prefix must be 0 to ${max}`
  return undefined
}

/** Resolves client addresses under one trust setting. */
export class ClientAddress {
  private readonly proxies: BlockList | undefined

  constructor(private readonly trust: ProxyTrust) {
    if (trust.cidrs.length === 0) return
    this.proxies = new BlockList()
    for (const range of trust.cidrs) {
      const problem = cidrProblem(range)
      if (problem) throw new Error(`TRUSTED_PROXY_CIDRS: ${problem}`)
      const [addr, bits] = range.split('/') as [string, string | undefined]
      const type = isIP(addr) === 4 ? 'ipv4' : 'ipv6'
      if (bits === undefined) this.proxies.addAddress(addr, type)
      else this.proxies.addSubnet(addr, Number(bits), type)
    }
  }

  /** The client's address: `remote` (the socket's peer) unless trusted proxies forwarded the request. */
  of(remote: string, forwardedFor: string | undefined): string {
    const peer = plain(remote)
    if (this.trust.hops === 0 && !this.proxies) return peer
    if (this.proxies && !this.trusted(peer)) return peer
    // The chain as the last proxy saw it: every X-Forwarded-For entry, then the peer itself.
    const chain = (forwardedFor ?? '')
      .split(',')
      .map((s) => plain(s.trim()))
      .filter((s) => s !== '')
    chain.push(peer)
    if (this.proxies) {
      for (let i = chain.length - 1; i >= 0; i--) {
        const a = chain[i]!
        if (isIP(a) === 0) return chain[i + 1] ?? peer
        if (!this.trusted(a)) return a
      }
      return chain[0]!
    }
    // By count: the last `hops` entries are the proxies; the one before them is the client.
    const at = chain.length - 1 - this.trust.hops
    const client = chain[Math.max(0, at)]!
    return isIP(client) === 0 ? peer : client
  }

  private trusted(addr: string): boolean {
    const family = isIP(addr)
    return family !== 0 && this.proxies!.check(addr, family === 4 ? 'ipv4' : 'ipv6')
  }
}

/** The bucket a per-client limit counts `addr` in: an IPv4 address itself, an IPv6 one by its /64. */
export function clientBucket(addr: string): string {
  if (isIP(addr) !== 6) return addr
  const groups = expand(addr)
  return `${groups.slice(0, 4).join(':')}::/64`
}

/** An address without brackets, port or zone; IPv4-mapped IPv6 (::ffff:1.2.3.4) as the IPv4 one. */
function plain(s: string): string {
  let a = s
  if (a.startsWith('[')) a = a.slice(1, a.indexOf(']') < 0 ? undefined : a.indexOf(']'))
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'))
  const zone = a.indexOf('%')
  if (zone >= 0) a = a.slice(0, zone)
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a)
  if (mapped) return mapped[1]!
  if (isIP(a) === 6) return expand(a).join(':')
  return a
}

/** The eight groups of an IPv6 address, each as lower-case hex without leading zeros. */
function expand(addr: string): string[] {
  let a = addr.toLowerCase()
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a)
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number) as [number, number, number, number]
    a = `${a.slice(0, v4.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`
  }
  const [head, tail] = a.split('::') as [string, string | undefined]
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16).toString(16))
}
