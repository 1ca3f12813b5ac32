import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { createLogger } from '../logging/logger.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from './rate-limiter.js';
import { RedisRateLimitStore, RedisUnavailableError } from './redis-rate-limit.store.js';
import { privateRedis } from '../jobs/private-redis.test-support.js';
import { REDIS_COMMAND_TIMEOUT_MS } from '../jobs/redis-options.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = createLogger('silent');

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Answering within the command timeout is the contract; asserted with a margin (× 3 + 5 s) a loaded 2-core CI machine cannot miss. */
const COMMAND_BOUND_MS = REDIS_COMMAND_TIMEOUT_MS * 3 + 5000;

/**
 * Settles `work` against a generous deadline (`hung` if it did not settle in time). The ms are for
 * printing; tests assert what was answered, never the figure (CI is noisy).
 */
async function timed<T>(work: () => Promise<T>, deadlineMs = COMMAND_BOUND_MS): Promise<{ ms: number; answer: T | 'hung' }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const answer = await Promise.race([work(), new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), deadlineMs)))]);
  clearTimeout(timer);
  return { ms: Date.now() - started, answer };
}

/**
 * The store, recording how each hit ended: answered by Redis, failed on Redis's command timeout, or
 * skipped (failed at once without a round trip to Redis), or failed otherwise.
 */
function watchedStore(store: RateLimitStore) {
  const asks: Array<'pending' | 'answered' | 'timed out' | 'skipped' | 'failed'> = [];
  const watched: RateLimitStore = {
    kind: store.kind,
    hit(key, ttlMs, now) {
      const index = asks.push('pending') - 1;
      return store.hit(key, ttlMs, now).then(
        (count) => ((asks[index] = 'answered'), count),
        (error: unknown) => {
          asks[index] = error instanceof RedisUnavailableError ? 'skipped' : /Command timed out/.test(String((error as Error).message)) ? 'timed out' : 'failed';
          throw error;
        },
      );
    },
    close: () => store.close(),
  };
  return { store: watched, asks };
}

/** A clock the test moves by hand: 10:00:30 UTC, mid-window. */
function handClock(): Clock & { advance(ms: number): void } {
  let at = Date.parse('2026-11-20T10:00:30.000Z');
  return { now: () => new Date(at), advance: (ms) => (at += ms) };
}

const stores: Array<[string, () => Promise<RateLimitStore>]> = [
  ['in memory', async () => new MemoryRateLimitStore()],
  // A unique prefix per test keeps runs (and parallel workers) out of each other's counts.
  ['in Redis', () => RedisRateLimitStore.open(redisUrl, `ledgerline-test:${randomBytes(6).toString('hex')}:`)],
];

describe.each(stores)('the rate limiter with its counts %s', (_name, openStore) => {
  let store: RateLimitStore;
  beforeEach(async () => {
    store = await openStore();
  });
  afterEach(() => store.close());

  it('lets the limit through in a minute, refuses the next with the seconds until the window ends, and starts again after', async () => {
    const clock = handClock();
    const limiter = new RateLimiter(store, 3, clock, log);
    for (let i = 0; i < 3; i += 1) expect(await limiter.consume('user-a')).toEqual({ allowed: true });
    expect(await limiter.consume('user-a')).toEqual({ allowed: false, retryAfterSeconds: 30 });
    clock.advance(29_500);
    expect(await limiter.consume('user-a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(500);
    expect(await limiter.consume('user-a')).toEqual({ allowed: true });
  });

  it('counts each bucket on its own', async () => {
    const limiter = new RateLimiter(store, 1, handClock(), log);
    expect(await limiter.consume('user-a')).toEqual({ allowed: true });
    expect(await limiter.consume('user-a')).toMatchObject({ allowed: false });
    expect(await limiter.consume('user-b')).toEqual({ allowed: true });
  });

  it('counts concurrent requests exactly', async () => {
    const limiter = new RateLimiter(store, 50, handClock(), log);
    const decisions = await Promise.all(Array.from({ length: 80 }, () => limiter.consume('burst')));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(50);
  });
});

describe('the rate limiter when its store fails', () => {
  it('counts in this process instead, so the limit still holds, and counts in the store again when it answers', async () => {
    let storeUp = false;
    const storeCounts = new MemoryRateLimitStore();
    const flaky: RateLimitStore = {
      kind: 'redis',
      hit: (key, ttlMs, now) => (storeUp ? storeCounts.hit(key, ttlMs, now) : Promise.reject(new Error('connection refused'))),
      close: async () => undefined,
    };
    const limiter = new RateLimiter(flaky, 3, handClock(), log);
    expect(await limiter.consume('user-a')).toEqual({ allowed: true });
    expect(await limiter.consume('user-a')).toEqual({ allowed: true });
    storeUp = true;
    // The two hits counted in process during the outage still count in this window.
    expect(await limiter.consume('user-a')).toEqual({ allowed: true });
    expect(await limiter.consume('user-a')).toMatchObject({ allowed: false });
    expect(await limiter.consume('user-b')).toEqual({ allowed: true });
  });

  it('fails over at once, without waiting for a reconnect, when Redis is down at start and goes away later', async () => {
    const redis = await privateRedis();
    const started = Date.now();
    const store = await RedisRateLimitStore.open(redis.url, 'outage:');
    const openMs = Date.now() - started;
    try {
      const limiter = new RateLimiter(store, 2, handClock(), log);
      // Redis is started only below: the answer comes while it is down, so it did not wait for a reconnect.
      const first = await timed(() => limiter.consume('user-a'));
      expect(first.answer).toEqual({ allowed: true });
      expect(await limiter.consume('user-a')).toEqual({ allowed: true });
      expect(await limiter.consume('user-a')).toMatchObject({ allowed: false });

      await redis.start();
      await eventually(async () => (await store.hit('probe', 60_000)) > 0);
      // Back in Redis, with the in-process hits of this window still counted.
      expect(await limiter.consume('user-a')).toMatchObject({ allowed: false });
      expect(await limiter.consume('user-b')).toEqual({ allowed: true });
      await redis.stop();
      // Redis stays down to the end: the answer comes from the in-process fallback, not a reconnect.
      const during = await timed(() => limiter.consume('user-c'));
      expect(during.answer).toEqual({ allowed: true });
      console.info(
        `rate-limit store: open with Redis down took ${openMs} ms; the first hit with Redis down at start answered in ${first.ms} ms; a hit after Redis went away fell back in ${during.ms} ms`,
      );
    } finally {
      await store.close();
      await redis.stop();
    }
  });

  it('shares counts between two instances through Redis', async () => {
    const prefix = `ledgerline-test:${randomBytes(6).toString('hex')}:`;
    const [one, two] = await Promise.all([RedisRateLimitStore.open(redisUrl, prefix), RedisRateLimitStore.open(redisUrl, prefix)]);
    try {
      const clock = handClock();
      const first = new RateLimiter(one, 2, clock, log);
      const second = new RateLimiter(two, 2, clock, log);
      expect(await first.consume('user-a')).toEqual({ allowed: true });
      expect(await second.consume('user-a')).toEqual({ allowed: true });
      expect(await first.consume('user-a')).toMatchObject({ allowed: false });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('the rate limiter with a Redis that stops answering', () => {
  it('costs one request the command timeout, then counts in process without asking Redis for a while', async () => {
    const redis = await privateRedis();
    await redis.start();
    const { store, asks } = watchedStore(await RedisRateLimitStore.open(redis.url, 'frozen:'));
    try {
      const limiter = new RateLimiter(store, 2, handClock(), log);
      expect(await limiter.consume('user-a')).toEqual({ allowed: true });
      expect(asks).toEqual(['answered']);
      redis.freeze();
      // The one request that pays: it asks the frozen Redis, whose command times out, and is then
      // answered in process (all while Redis is still frozen: it thaws only in `finally`).
      const first = await timed(() => limiter.consume('user-a'));
      expect(first.answer).toEqual({ allowed: true });
      expect(asks).toEqual(['answered', 'timed out']);
      // In process this window starts from the hits this process counted itself (Redis has one more).
      const next = await timed(async () => [await limiter.consume('user-a'), await limiter.consume('user-a')]);
      expect(next.answer).toEqual([{ allowed: true }, { allowed: false, retryAfterSeconds: expect.any(Number) }]);
      // …without asking Redis again: the store skips it at once, with no wait on the command timeout.
      expect(asks).toEqual(['answered', 'timed out', 'skipped', 'skipped']);
      console.info(
        `rate-limit store with a frozen Redis: first request ${first.ms} ms (command timeout ${REDIS_COMMAND_TIMEOUT_MS} ms), the next two ${next.ms} ms together`,
      );
    } finally {
      redis.thaw();
      await store.close();
      await redis.stop();
    }
  });
});
