import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { privateRedis } from '../../../infrastructure/jobs/private-redis.test-support.js';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../../infrastructure/jobs/redis-options.js';
import { createLogger } from '../../../infrastructure/logging/logger.js';
import type { QuoteLookup } from '../quote.port.js';
import { createSandboxMarket } from '../sandbox-market/index.js';
import { QuoteCache } from './quote-cache.service.js';
import { RedisQuoteCacheStore } from './redis-quote-cache.store.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = createLogger('silent');
const found = createSandboxMarket().quoteOn('AAPL', '2026-11-20') as QuoteLookup & { found: true };

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = Date.now();
  const value = await work();
  return { ms: Date.now() - started, value };
}

describe('the Redis quote cache (real Redis)', () => {
  const prefix = `ledgerline-test:quote:${randomUUID()}:`;
  let store: RedisQuoteCacheStore;
  let inspect: Redis;

  beforeAll(async () => {
    store = RedisQuoteCacheStore.connect(redisUrl, prefix);
    inspect = new Redis(redisUrl);
    await eventually(() => store.ready);
  });
  afterAll(async () => {
    const keys = await inspect.keys(`${prefix}*`);
    if (keys.length > 0) await inspect.del(...keys);
    inspect.disconnect();
    await store.close();
  });

  it('keeps a quote and a "not found" under the prefix, each expiring with its TTL', async () => {
    await store.set('AAPL', found, 15_000);
    await store.set('NOPE', { found: false, symbol: 'NOPE' }, 15_000);
    expect(await store.get('AAPL')).toEqual(found);
    expect(await store.get('NOPE')).toEqual({ found: false, symbol: 'NOPE' });
    expect(await store.get('MSFT')).toBeUndefined();
    const ttl = await inspect.pttl(`${prefix}AAPL`);
    expect(ttl).toBeGreaterThan(10_000);
    expect(ttl).toBeLessThanOrEqual(15_000);
  });

  it('forgets an entry once its TTL has passed', async () => {
    await store.set('SHORT', { found: false, symbol: 'SHORT' }, 50);
    expect(await store.get('SHORT')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.get('SHORT')).toBeUndefined();
  });

  it('is shared: another instance’s store answers what this one cached', async () => {
    const other = RedisQuoteCacheStore.connect(redisUrl, prefix);
    try {
      await eventually(() => other.ready);
      await store.set('MSFT', { found: false, symbol: 'MSFT' }, 15_000);
      expect(await other.get('MSFT')).toEqual({ found: false, symbol: 'MSFT' });
    } finally {
      await other.close();
    }
  });

  it('takes a value it cannot read for a miss', async () => {
    await inspect.set(`${prefix}BROKEN`, '{"found":true,"quote":{"symbol":"BROKEN"}}', 'PX', 15_000);
    expect(await store.get('BROKEN')).toBeUndefined();
  });
});

describe('the quote cache while Redis is down or silent (a private redis-server)', () => {
  it('falls back to the process at once when Redis dies, and back to Redis when it returns', async () => {
    const redis = await privateRedis();
    await redis.start();
    const store = RedisQuoteCacheStore.connect(redis.url, 'ledgerline:quote:');
    const cache = new QuoteCache(store, log);
    try {
      await eventually(() => store.ready);
      await cache.set('AAPL', found, 15_000);
      expect(cache.memory.size).toBe(0);

      await redis.stop();
      await eventually(() => !store.ready);
      const missed = await timed(() => cache.get('AAPL'));
      expect(missed.value).toBeUndefined(); // Redis held it; the process never did
      expect(missed.ms).toBeLessThan(200);
      await cache.set('AAPL', found, 15_000);
      expect(await cache.get('AAPL')).toEqual(found);
      expect(cache.memory.size).toBe(1);

      await redis.start();
      await eventually(() => store.ready);
      // The restarted Redis is empty; what was cached in process during the outage still answers.
      expect(await cache.get('AAPL')).toEqual(found);
      await cache.set('MSFT', { found: false, symbol: 'MSFT' }, 15_000);
      expect(await store.get('MSFT')).toEqual({ found: false, symbol: 'MSFT' });
    } finally {
      await cache.close();
      await redis.stop();
    }
  }, 30_000);

  it('answers within the command timeout when Redis holds the connection but answers nothing, then stops asking it for a while', async () => {
    const redis = await privateRedis();
    await redis.start();
    const store = RedisQuoteCacheStore.connect(redis.url, 'ledgerline:quote:');
    const cache = new QuoteCache(store, log);
    try {
      await eventually(() => store.ready);
      redis.freeze();
      const first = await timed(() => cache.get('AAPL'));
      expect(first.value).toBeUndefined();
      expect(first.ms).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 50);
      expect(first.ms).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS * 3 + 5000);
      await cache.set('AAPL', found, 15_000);
      const paused = await timed(() => cache.get('AAPL'));
      expect(paused.value).toEqual(found);
      expect(paused.ms).toBeLessThan(200);
      console.info(`silent Redis: first lookup ${first.ms} ms (command timeout ${REDIS_COMMAND_TIMEOUT_MS} ms), set + lookup while paused ${paused.ms} ms`);
    } finally {
      redis.thaw();
      await cache.close();
      await redis.stop();
    }
  }, 30_000);
});
