import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { Principal } from '../../../infrastructure/http/authenticator.port.js';
import { hashApiKey, isApiKeyFormat } from '../api-key.js';
import { authenticateApiKey, revokeApiKeyInTransaction } from '../identity.store.js';
import { ApiKeyCache, type ApiKeyCacheLimits } from './api-key-cache.js';
import { ApiKeyInvalidations, DEFAULT_INVALIDATION_TIMING, type Invalidation, type InvalidationTiming } from './api-key-invalidations.js';

export const DEFAULT_API_KEY_CACHE_TTL_MS = 60_000;

/**
 * API-key authentication from an in-process cache that is used only while invalidations are
 * heard (docs/decisions/0023): deaf, it reads every key from the database and keeps nothing.
 * Unknown and revoked keys are never cached, so a bad key always costs a read.
 */
export interface CachedApiKeysOptions {
  readonly limits: ApiKeyCacheLimits;
  readonly timing?: InvalidationTiming;
  readonly log?: Logger;
  readonly monotonicNow?: () => number;
}

export class CachedApiKeys {
  readonly cache: ApiKeyCache;
  readonly invalidations: ApiKeyInvalidations;
  private readonly monotonicNow: () => number;
  private readonly echoTimeoutMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    pool: pg.Pool,
    options: CachedApiKeysOptions,
  ) {
    this.monotonicNow = options.monotonicNow ?? (() => performance.now());
    const timing = options.timing ?? DEFAULT_INVALIDATION_TIMING;
    this.echoTimeoutMs = timing.staleAfterMs;
    this.cache = new ApiKeyCache(options.limits, this.monotonicNow);
    this.invalidations = new ApiKeyInvalidations(db, pool, this.invalidate, timing, options.log, this.monotonicNow);
  }

  start(): Promise<void> {
    return this.invalidations.start();
  }

  close(): Promise<void> {
    return this.invalidations.close();
  }

  /** What the invalidation listener calls for each notification it hears (and when it goes deaf). */
  readonly invalidate = (invalidation: Invalidation): void => {
    if (invalidation.kind === 'key') this.cache.forgetKey(invalidation.apiKeyId);
    else if (invalidation.kind === 'user') this.cache.forgetUser(invalidation.userId);
    else this.cache.forgetAll();
  };

  async authenticate(key: string): Promise<Principal | null> {
    if (!isApiKeyFormat(key)) return null;
    if (!this.invalidations.trusted()) {
      this.cache.forgetAll();
      return authenticateApiKey(this.db, key);
    }
    const keyHash = hashApiKey(key).toString('base64');
    const cached = this.cache.recall(keyHash);
    if (cached) return cached;
    const generation = this.cache.generation;
    const principal = await authenticateApiKey(this.db, key);
    if (principal && this.invalidations.trusted()) this.cache.remember(keyHash, deepFreeze(principal), generation);
    return principal;
  }

  /**
   * Forgets the key here, then answers only once no instance can still answer it from a cache:
   * every instance that may be using one has acknowledged the invalidation, or the staleness
   * bound has passed since the commit (`ApiKeyInvalidations.settled`). Usually milliseconds;
   * at most `staleAfterMs` (3 s) when an instance stopped or its acknowledgement was lost.
   */
  async revoke(userId: string, apiKeyId: string, now: Date): Promise<boolean> {
    const echo = this.invalidations.echoOf(apiKeyId, this.echoTimeoutMs);
    const xid = await revokeApiKeyInTransaction(this.db, userId, apiKeyId, now).catch((error: unknown) => {
      echo.cancel();
      throw error;
    });
    const committedAt = this.monotonicNow();
    this.cache.forgetKey(apiKeyId);
    if (xid === null) {
      echo.cancel();
      return false;
    }
    await this.invalidations.settled(xid, echo.heard, committedAt);
    return true;
  }
}

function deepFreeze(principal: Principal): Principal {
  Object.freeze(principal.user);
  Object.freeze(principal.scopes);
  Object.freeze(principal.credential);
  return Object.freeze(principal);
}
