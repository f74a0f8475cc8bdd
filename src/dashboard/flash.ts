// What a form's change did, carried to the page it redirects to (Post/Redirect/Get): sealed
// into the address (`?done=`) with AES-256-GCM under a key derived from the browser's session
// token, so only the browser whose session made the change can read it, nobody can forge a
// notice, and the node keeps no state. A sealed value names the page it is for and lasts
// FLASH_MS: a reload shows the same outcome (a key minted once is shown again, never minted
// again); after that, or from another session, the page shows nothing of it.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'

/** How long a sealed outcome can be opened. */
export const FLASH_MS = 10 * 60_000

const keyOf = (session: string) => createHmac('sha256', session).update('agentrooms dashboard flash v1').digest()

/** `value` sealed for `page` under `session`, as URL-safe text. */
export function seal(session: string, page: string, value: unknown, now = Date.now()): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(session), iv)
  cipher.setAAD(Buffer.from(page))
  const body = Buffer.concat([cipher.update(JSON.stringify({ exp: now + FLASH_MS, value })), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

/** The value sealed for `page` under `session`; undefined when it is not, expired, or altered. */
export function unseal(session: string | undefined, page: string, sealed: string | null, now = Date.now()): unknown {
  if (!session || !sealed || sealed.length > 16_384) return undefined
  const raw = Buffer.from(sealed, 'base64url')
  if (raw.length < 29) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(session), raw.subarray(0, 12))
    decipher.setAAD(Buffer.from(page))
    decipher.setAuthTag(raw.subarray(12, 28))
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    const { exp, value } = JSON.parse(text) as { exp: number; value: unknown }
    return exp > now ? value : undefined
  } catch {
    return undefined
  }
}
