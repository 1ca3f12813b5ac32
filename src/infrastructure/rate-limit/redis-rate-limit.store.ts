import { Redis } from 'ioredis';
import type { RateLimitStore } from './rate-limiter.js';

const CONNECT_WAIT_MS = 2000;

/** Counts shared by every instance: INCR and an expiry in one round trip. */
export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis';

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Waits briefly for the connection; a Redis that is down now is retried in the background. */
  static async open(redisUrl: string, prefix = 'ledgerline:rate-limit:'): Promise<RedisRateLimitStore> {
    // No offline queue: while Redis is away a hit fails at once (and is let through) rather than waiting.
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: CONNECT_WAIT_MS });
    redis.on('error', () => undefined);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CONNECT_WAIT_MS);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return new RedisRateLimitStore(redis, prefix);
  }

  async hit(key: string, ttlMs: number): Promise<number> {
    const fullKey = this.prefix + key;
    const results = await this.redis.multi().incr(fullKey).pexpire(fullKey, ttlMs).exec();
    const [error, count] = results?.[0] ?? [new Error('Redis returned no result'), null];
    if (error) throw error;
    return Number(count);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
