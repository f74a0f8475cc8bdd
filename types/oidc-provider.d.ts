// The part of oidc-provider (which ships no types) that the authorization server
// (src/http/oauth/) and the sign-in tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export interface AdapterPayload {
    [key: string]: unknown
    grantId?: string
    uid?: string
  }

  /** A storage adapter: one instance per record kind (its `name`). */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>
    find(id: string): Promise<AdapterPayload | undefined>
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>
    findByUid(uid: string): Promise<AdapterPayload | undefined>
    consume(id: string): Promise<void>
    destroy(id: string): Promise<void>
    revokeByGrantId(grantId: string): Promise<void>
  }

  export interface Grant {
    jti: string
    accountId?: string
    clientId?: string
    addOIDCScope(scope: string): void
    addResourceScope(resource: string, scope: string): void
    save(ttl?: number): Promise<string>
    destroy(): Promise<void>
  }

  export interface Interaction {
    uid: string
    jti: string
    exp: number
    returnTo: string
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> }
    params: Record<string, unknown>
    session?: { accountId?: string; uid?: string }
    result?: Record<string, unknown>
    save(ttl: number): Promise<string>
    destroy(): Promise<void>
  }

  export interface Client {
    clientId: string
    clientName?: string
    redirectUris: string[]
    applicationType?: string
    clientIdMetadataDocument?: boolean
    metadata(): Record<string, unknown>
  }

  export interface AccessToken {
    jti: string
    grantId?: string
    clientId?: string
    accountId?: string
    aud?: string | string[]
    scope?: string
    exp?: number
    isExpired: boolean
  }

  export class OIDCProviderError extends Error {
    error: string
    error_description?: string
    status: number
  }

  export const errors: {
    InvalidTarget: new (description?: string) => OIDCProviderError
    InvalidGrant: new (description?: string) => OIDCProviderError
    InvalidRedirectUri: new (description?: string) => OIDCProviderError
    InvalidClientMetadata: new (description?: string) => OIDCProviderError
    AccessDenied: new (description?: string) => OIDCProviderError
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    issuer: string
    proxy: boolean
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>
    on(event: string, listener: (...args: any[]) => void): this
    Grant: (new (init: { accountId: string; clientId: string; jti?: string }) => Grant) & {
      find(id: string): Promise<Grant | undefined>
    }
    Interaction: { find(uid: string): Promise<Interaction | undefined> }
    Client: { find(id: string): Promise<Client | undefined> }
    AccessToken: { find(token: string): Promise<AccessToken | undefined> }
  }
}
