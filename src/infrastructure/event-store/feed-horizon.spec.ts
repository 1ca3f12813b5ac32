import type pg from 'pg';
import { FeedHorizon } from './feed-horizon.js';

/** A pool that only answers the horizon's one question: statement_timeout 5 s, so the bound is 10 s. */
const pool = { query: async () => ({ rows: [{ setting: '5000' }] }) } as unknown as pg.Pool;

describe('FeedHorizon', () => {
  it('keeps a running transaction old when a snapshot taken before it began arrives late', async () => {
    const horizon = new FeedHorizon(pool);
    horizon.observe('100:105:101', 0);
    expect(await horizon.oldTransactions(11_000)).toEqual(['101']);
    // Taken before 101 began (xmax 101): it cannot say 101 finished, so 101's clock does not restart.
    horizon.observe('100:101:', 12_000);
    expect(await horizon.oldTransactions(13_000)).toEqual(['101']);
  });

  it('forgets a transaction once a later snapshot shows it finished', async () => {
    const horizon = new FeedHorizon(pool);
    horizon.observe('100:105:101', 0);
    horizon.observe('102:110:', 5_000);
    expect(await horizon.oldTransactions(20_000)).toEqual([]);
  });

  it('names a transaction old only after the bound', async () => {
    const horizon = new FeedHorizon(pool);
    horizon.observe('100:105:101,103', 0);
    horizon.observe('100:105:101,103', 4_000);
    expect(await horizon.oldTransactions(9_000)).toEqual([]);
    expect(await horizon.oldTransactions(10_001)).toEqual(['101', '103']);
  });
});
