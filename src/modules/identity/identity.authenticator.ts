import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { Database } from '../../infrastructure/database/schema.js';
import type { Authenticator, Principal, ResumedSession } from '../../infrastructure/http/authenticator.port.js';
import { SCOPES } from './api-key.js';
import type { CachedApiKeys } from './api-key-cache/cached-api-keys.js';
import { authenticateApiKey, revokeApiKey, touchApiKey } from './identity.store.js';
import type { SessionLifetime } from './session.js';
import { resumeSession } from './session.store.js';

/**
 * The identity module's answer to the HTTP guard. API keys come from the cache when there is one
 * (API_KEY_CACHE_SIZE > 0); sessions are always read, because resuming one may extend it.
 */
export class IdentityAuthenticator implements Authenticator, OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly sessionLifetime: SessionLifetime,
    private readonly cachedApiKeys: CachedApiKeys | null,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.cachedApiKeys?.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.cachedApiKeys?.close();
  }

  byApiKey(key: string): Promise<Principal | null> {
    return this.cachedApiKeys ? this.cachedApiKeys.authenticate(key) : authenticateApiKey(this.db, key);
  }

  async bySession(token: string, now: Date): Promise<ResumedSession | null> {
    const session = await resumeSession(this.db, token, now, this.sessionLifetime);
    if (!session) return null;
    return { principal: { user: session.user, scopes: SCOPES, credential: { kind: 'session', expiresAt: session.expiresAt } }, refreshed: session.refreshed };
  }

  recordApiKeyUse(apiKeyId: string, now: Date): Promise<void> {
    return touchApiKey(this.db, apiKeyId, now);
  }

  /** Revokes one of the user's live keys, on this instance at once (see CachedApiKeys.revoke); false when there is none. */
  revokeApiKey(userId: string, apiKeyId: string, now: Date): Promise<boolean> {
    return this.cachedApiKeys ? this.cachedApiKeys.revoke(userId, apiKeyId, now) : revokeApiKey(this.db, userId, apiKeyId, now);
  }
}
