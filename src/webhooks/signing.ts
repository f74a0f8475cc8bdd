// Webhook secrets and signatures. One secret, two schemes over the same request:
//   X-Service-Signature  hex HMAC-SHA256 of the exact raw body, keyed with the secret string as
//                        given to the user (the service's own scheme; `openssl dgst -sha256 -hmac`)
//   webhook-signature    "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>", keyed with the
//                        base64-decoded part of the secret after "whsec_" (Standard Webhooks, so
//                        that ecosystem's verifiers work unchanged)
// A rotated secret (POST /admin/webhooks/:id/rotate-secret) leaves the previous one signing for a
// stated overlap: webhook-signature then carries both signatures, space-separated, newest first
// (Standard Webhooks allows several; its verifiers accept a match of any), and
// X-Service-Signature, which holds one value, stays keyed with the previous secret until the
// overlap ends, so receivers not yet updated keep verifying; a receiver holding both secrets
// accepts either (docs/webhooks.md, Rotating the secret).
import { createHmac, randomBytes } from 'node:crypto'
import type { HookTarget } from '../store/webhooks.js'

const PREFIX = 'whsec_'
const SECRET_BYTES = 32

/** A new webhook secret: "whsec_" + base64 of 32 random bytes (the Standard Webhooks form). */
export function newSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64')
}

/** The key of the Standard Webhooks signature: the bytes the secret's base64 part encodes. */
export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
}

/** X-Service-Signature: hex HMAC-SHA256 of the raw body, keyed with the secret string. */
export function serviceSignature(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

/** webhook-signature: "v1," + base64 HMAC-SHA256 of "<id>.<timestamp>.<body>". */
export function standardSignature(secret: string, id: string, timestampS: number, body: Buffer): string {
  const mac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestampS}.`).update(body).digest('base64')
  return `v1,${mac}`
}

/** The secrets a webhook signs with: the current one, and the previous one until `until` (ms) after a rotation. */
export interface SigningSecrets {
  secret: string
  previous?: { secret: string; until: number } | undefined
}

/** The secrets a webhook signs with now. */
export function secretsOf(hook: HookTarget): SigningSecrets {
  return {
    secret: hook.secret,
    previous:
      hook.prev_secret !== undefined && hook.prev_until !== undefined
        ? { secret: hook.prev_secret, until: hook.prev_until }
        : undefined,
  }
}

/** Every signature and identification header of one attempt sent at `timestampS`. */
export function signedHeaders(
  secrets: SigningSecrets,
  deliveryId: string,
  timestampS: number,
  body: Buffer,
): Record<string, string> {
  const old = secrets.previous && secrets.previous.until > timestampS * 1000 ? secrets.previous.secret : undefined
  let standard = standardSignature(secrets.secret, deliveryId, timestampS, body)
  if (old !== undefined) standard += ` ${standardSignature(old, deliveryId, timestampS, body)}`
  return {
    'X-Service-Signature': serviceSignature(old ?? secrets.secret, body),
    'X-Service-Delivery': deliveryId,
    'X-Service-Timestamp': String(timestampS),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': standard,
  }
}
