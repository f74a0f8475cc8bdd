// A team's audit trail (docs/accounts.md): who signed in, minted or revoked a key or invite,
// registered a webhook, invited or removed a member. One Redis stream per team under the team's
// tag; each append trims entries older than 90 days and past the newest 10,000 (approximately:
// whole stream nodes go), so the trail keeps 90 days, and no more than that many entries.
// The authorization server has a trail of its own, kept alike: the protocol requests it refused
// (a wrong redirect URI, missing or plain PKCE, another resource, ...), which name no team yet.
import { decode, encode } from '../shared/msgpack.js'
import type { Store } from '../store/store.js'
import type { WaitBudget } from '../shared/wait-budget.js'

export const AUDIT_KEEP_MS = 90 * 86_400_000
export const AUDIT_KEEP_MAX = 10_000

export interface AuditEntry {
  id: string
  at: string
  /** Who: "user:<id> <email>", "key:<keyId>", or "operator". */
  actor: string
  action: string
  target?: string
}

export class Audit {
  constructor(private readonly store: Store) {}

  /** `budget`: the calling request's time waiting for Redis (src/shared/wait-budget.ts). */
  async record(teamId: string, actor: string, action: string, target?: string, budget?: WaitBudget): Promise<void> {
    await this.store
      .reads(budget)
      .auth.appendAudit(
        teamId,
        Buffer.from(encode(target === undefined ? { actor, action } : { actor, action, target })),
        AUDIT_KEEP_MS,
        AUDIT_KEEP_MAX,
      )
  }

  /** The newest `limit` entries, newest first. */
  async read(teamId: string, limit = 100, budget?: WaitBudget): Promise<AuditEntry[]> {
    return (await this.store.reads(budget).auth.readAudit(teamId, limit)).map(entryOf)
  }

  /** Records a refusal of the authorization server in its own trail. */
  async recordServer(actor: string, action: string, target: string): Promise<void> {
    await this.store
      .reads(undefined)
      .auth.appendTrail(
        this.store.keys.oauthAudit(),
        Buffer.from(encode({ actor, action, target })),
        AUDIT_KEEP_MS,
        AUDIT_KEEP_MAX,
      )
  }

  /** The newest `limit` entries of the authorization server's trail, newest first. */
  async readServer(limit = 50): Promise<AuditEntry[]> {
    return (await this.store.reads(undefined).auth.readTrail(this.store.keys.oauthAudit(), limit)).map(entryOf)
  }
}

function entryOf([id, entry]: [string, Buffer]): AuditEntry {
  const d = decode(entry) as { actor: string; action: string; target?: string }
  return { id, at: new Date(Number(id.split('-')[0])).toISOString(), ...d }
}
