// Webhook secrets and signatures. One secret, two schemes over the same request:
//   X-Service-Signature  hex HMAC-SHA256 of the exact raw body, keyed with the secret string as
//                        given to the user (the spec's scheme; `openssl dgst -sha256 -hmac`)
//   webhook-signature    "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>", keyed with the
//                        base64-decoded part of the secret after "whsec_" (Standard Webhooks, so
//                        that ecosystem's verifiers work unchanged)
import { createHmac, randomBytes } from 'node:crypto'

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

/** Every signature and identification header of one attempt. */
export function signedHeaders(secret: string, deliveryId: string, timestampS: number, body: Buffer): Record<string, string> {
  return {
    'X-Service-Signature': serviceSignature(secret, body),
    'X-Service-Delivery': deliveryId,
    'X-Service-Timestamp': String(timestampS),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': standardSignature(secret, deliveryId, timestampS, body),
  }
}
