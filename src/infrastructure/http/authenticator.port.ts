/** What a credential may open: `read` and `write` follow the HTTP method, `keys` opens key management. */
export type Scope = 'read' | 'write' | 'keys';

export interface User {
  readonly id: string;
  readonly email: string | null;
  readonly name: string | null;
}

/** What authenticated the request: an API key (bearer), or a browser session (cookie). */
export type Credential = { readonly kind: 'apiKey'; readonly apiKeyId: string } | { readonly kind: 'session'; readonly expiresAt: Date };

export interface Principal {
  readonly user: User;
  readonly scopes: readonly Scope[];
  readonly credential: Credential;
}

export interface ResumedSession {
  readonly principal: Principal & { readonly credential: { readonly kind: 'session' } };
  /** Set when this request extended the session: the cookie must be sent again. */
  readonly refreshed: boolean;
}

/**
 * Who a credential belongs to, as the HTTP guard asks it. The identity module answers; the guard
 * knows only how credentials travel (bearer header, session cookie) and what a request may do.
 */
export interface Authenticator {
  /** The live key's principal, or null for an unknown, malformed or revoked key. */
  byApiKey(key: string): Promise<Principal | null>;
  /** The live session's principal (extended when due), or null for an unknown or ended session. */
  bySession(token: string, now: Date): Promise<ResumedSession | null>;
  recordApiKeyUse(apiKeyId: string, now: Date): Promise<void>;
}
