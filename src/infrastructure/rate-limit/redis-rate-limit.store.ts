import { Redis } from 'ioredis';
import { failFastRedisOptions, REDIS_CONNECT_TIMEOUT_MS } from '../jobs/redis-options.js';
import type { RateLimitStore } from './rate-limiter.js';

/** After a command timed out on a connected Redis, requests skip it for this long. */
const SILENT_REDIS_PAUSE_MS = 5000;

export class RedisUnavailableError extends Error {
  constructor() {
    super('Redis is unavailable');
    this.name = 'RedisUnavailableError';
  }
}

/** Counts shared by every instance: INCR and an expiry in one round trip. */
export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis';
  private pausedUntil = 0;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /**
   * Waits for the first connection attempt (at most the connect timeout), so that requests count
   * in Redis from the start; a Redis that is down now is retried in the background.
   */
  static async open(redisUrl: string, prefix = 'ledgerline:rate-limit:'): Promise<RedisRateLimitStore> {
    const redis = new Redis(redisUrl, failFastRedisOptions());
    // Reconnect attempts report here; the limiter logs the outage once, when a request meets it.
    redis.on('error', () => undefined);
    await new Promise<void>((resolve) => {
      const settle = () => {
        clearTimeout(timer);
        redis.off('ready', settle);
        redis.off('error', settle);
        resolve();
      };
      const timer = setTimeout(settle, REDIS_CONNECT_TIMEOUT_MS);
      redis.once('ready', settle);
      redis.once('error', settle);
    });
    return new RedisRateLimitStore(redis, prefix);
  }

  async hit(key: string, ttlMs: number): Promise<number> {
    // A request never waits on a connection that is not there: it fails now and is counted in process.
    if (this.redis.status !== 'ready' || Date.now() < this.pausedUntil) throw new RedisUnavailableError();
    const fullKey = this.prefix + key;
    try {
      const results = await this.redis.multi().incr(fullKey).pexpire(fullKey, ttlMs).exec();
      const [error, count] = results?.[0] ?? [new Error('Redis returned no result'), null];
      if (error) throw error;
      return Number(count);
    } catch (error) {
      // A Redis that holds the connection but does not answer would cost every request the command timeout.
      if (/Command timed out/.test(String((error as { message?: unknown } | null)?.message))) this.pausedUntil = Date.now() + SILENT_REDIS_PAUSE_MS;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
