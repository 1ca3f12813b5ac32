import { MAX_DELIVERY_ATTEMPTS, outcomeAfterAttempt } from './webhook-retry.js';

describe('webhook retry schedule', () => {
  it('waits the base, then twice as long each time: 30 s, 1, 2, 4, 8, 16, 32 min', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((attempt) => outcomeAfterAttempt(attempt, false, 30_000));
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000].map((retryInMs) => ({ status: 'pending', retryInMs })));
  });

  it('fails the delivery for good after the eighth attempt', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8);
    expect(outcomeAfterAttempt(8, false, 30_000)).toEqual({ status: 'failed' });
  });

  it('succeeds on any attempt that was answered with a 2xx', () => {
    expect(outcomeAfterAttempt(1, true, 30_000)).toEqual({ status: 'succeeded' });
    expect(outcomeAfterAttempt(8, true, 30_000)).toEqual({ status: 'succeeded' });
  });

  it('scales with a configured base (tests use a short one)', () => {
    expect(outcomeAfterAttempt(3, false, 200)).toEqual({ status: 'pending', retryInMs: 800 });
  });
});
