import { Redis } from 'ioredis';
import { failFastRedisOptions } from '../../../infrastructure/jobs/redis-options.js';
import type { QuoteLookup } from '../quote.port.js';
import { decodeLookup, encodeLookup, type QuoteCacheStore } from './quote-cache.js';

/** After a command timed out on a connected Redis, lookups skip it for this long. */
const SILENT_REDIS_PAUSE_MS = 5000;

export const QUOTE_CACHE_KEY_PREFIX = 'ledgerline:quote:';

export class QuoteCacheUnavailableError extends Error {
  constructor() {
    super('Redis is unavailable');
    this.name = 'QuoteCacheUnavailableError';
  }
}

/**
 * Quotes shared by every instance, one key per symbol expiring with its TTL. A request never waits
 * on a Redis that is not connected (no offline queue: it fails at once and the caller falls back),
 * and a silent one costs at most one command timeout every SILENT_REDIS_PAUSE_MS.
 */
export class RedisQuoteCacheStore implements QuoteCacheStore {
  readonly kind = 'redis';
  private pausedUntil = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = QUOTE_CACHE_KEY_PREFIX,
  ) {}

  /** Connects in the background: until Redis is ready every call fails fast (the cache then answers from process). */
  static connect(redisUrl: string, prefix = QUOTE_CACHE_KEY_PREFIX): RedisQuoteCacheStore {
    const redis = new Redis(redisUrl, failFastRedisOptions());
    // Reconnect attempts report here; the quote cache logs the outage when a lookup meets it.
    redis.on('error', () => undefined);
    return new RedisQuoteCacheStore(redis, prefix);
  }

  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  async get(symbol: string): Promise<QuoteLookup | undefined> {
    const text = await this.command(() => this.redis.get(this.prefix + symbol));
    return text === null ? undefined : decodeLookup(symbol, text);
  }

  async set(symbol: string, lookup: QuoteLookup, ttlMs: number): Promise<void> {
    await this.command(() => this.redis.set(this.prefix + symbol, encodeLookup(lookup), 'PX', Math.max(1, Math.round(ttlMs))));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  private async command<T>(send: () => Promise<T>): Promise<T> {
    if (this.redis.status !== 'ready' || Date.now() < this.pausedUntil) throw new QuoteCacheUnavailableError();
    try {
      return await send();
    } catch (error) {
      if (/Command timed out/.test(String((error as { message?: unknown } | null)?.message))) this.pausedUntil = Date.now() + SILENT_REDIS_PAUSE_MS;
      throw error;
    }
  }
}
