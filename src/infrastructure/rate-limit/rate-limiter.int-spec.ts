import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { createLogger } from '../logging/logger.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from './rate-limiter.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = createLogger('silent');

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
  it('lets requests through rather than refusing everyone', async () => {
    const broken: RateLimitStore = { kind: 'redis', hit: () => Promise.reject(new Error('connection refused')), close: async () => undefined };
    const limiter = new RateLimiter(broken, 1, handClock(), log);
    expect(await limiter.consume('user-a')).toEqual({ allowed: true });
    expect(await limiter.consume('user-a')).toEqual({ allowed: true });
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
