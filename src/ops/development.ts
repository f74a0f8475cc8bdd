// Whether a node is a development one: it alone prints secrets (the default team's key, its
// owner's sign-in link) at first start. Anything reachable from elsewhere — a PUBLIC_URL, or a
// listening address other than loopback — is treated as production, where the operator gets in
// through `npm run team` on a machine with access to Redis.
import { isIP } from 'node:net'

const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback'])

/** Whether `host` (a HOST setting) names this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (LOOPBACK_NAMES.has(h)) return true
  if (isIP(h) === 4) return h.startsWith('127.')
  return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h)
}

export function isDevelopment(settings: { publicUrl?: string; host: string }): boolean {
  return settings.publicUrl === undefined && isLoopbackHost(settings.host)
}

/** The page that signs a link's holder in, on the node's public base. */
export function signInLinkOf(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/signin/link?token=${token}`
}
