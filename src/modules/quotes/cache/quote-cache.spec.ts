import { createLogger } from '../../../infrastructure/logging/logger.js';
import type { Quote, QuoteLookup } from '../quote.port.js';
import { decodeLookup, encodeLookup, MemoryQuoteCacheStore, type QuoteCacheStore } from './quote-cache.js';
import { QuoteCache } from './quote-cache.service.js';

const quote: Quote = {
  symbol: 'AAPL',
  name: 'Apple Inc.',
  price: '203.45',
  currency: 'USD',
  change: '1.20',
  changePercent: '0.59',
  previousClose: '202.25',
  open: '202.80',
  dayHigh: '204.10',
  dayLow: '201.95',
  volume: 48213000,
  asOf: '2026-11-20',
};
const found: QuoteLookup = { found: true, quote };
const log = createLogger('silent');

function handClock() {
  let at = 1_000_000;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('the in-process quote cache', () => {
  it('answers a lookup until its TTL has passed, then misses', async () => {
    const clock = handClock();
    const store = new MemoryQuoteCacheStore(clock.now);
    await store.set('AAPL', found, 15_000);
    await store.set('NOPE', { found: false, symbol: 'NOPE' }, 15_000);
    clock.advance(14_999);
    expect(await store.get('AAPL')).toEqual(found);
    expect(await store.get('NOPE')).toEqual({ found: false, symbol: 'NOPE' });
    clock.advance(1);
    expect(await store.get('AAPL')).toBeUndefined();
    expect(await store.get('NOPE')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('holds at most its capacity, dropping the oldest write first', async () => {
    const store = new MemoryQuoteCacheStore(Date.now, 3);
    for (const symbol of ['A', 'B', 'C']) await store.set(symbol, { found: false, symbol }, 60_000);
    await store.set('A', { found: false, symbol: 'A' }, 60_000); // rewritten: now the newest
    await store.set('D', { found: false, symbol: 'D' }, 60_000);
    expect(store.size).toBe(3);
    expect(await store.get('B')).toBeUndefined();
    for (const symbol of ['A', 'C', 'D']) expect(await store.get(symbol)).toBeDefined();
  });
});

describe('quote lookups as a shared cache holds them', () => {
  it('round-trips a quote and a "not found"', () => {
    expect(decodeLookup('AAPL', encodeLookup(found))).toEqual(found);
    expect(decodeLookup('NOPE', encodeLookup({ found: false, symbol: 'nope' }))).toEqual({ found: false, symbol: 'NOPE' });
  });

  it('takes anything it did not write for a miss, never for a quote', () => {
    const { volume: _volume, ...withoutVolume } = quote;
    for (const text of ['', 'not json', 'null', '42', '"found"', '{}', '{"found":true}', JSON.stringify({ found: true, quote: withoutVolume }), JSON.stringify({ found: true, quote: { ...quote, price: 203.45 } })]) {
      expect([text, decodeLookup('AAPL', text)]).toEqual([text, undefined]);
    }
    // Another symbol's quote under this key is not this symbol's quote.
    expect(decodeLookup('MSFT', encodeLookup(found))).toBeUndefined();
  });

  it('keeps only the fields of a quote', () => {
    const decoded = decodeLookup('AAPL', JSON.stringify({ found: true, quote: { ...quote, injected: 'x' } }));
    expect(decoded).toEqual(found);
  });
});

function failingStore(): QuoteCacheStore & { asks: number } {
  return {
    kind: 'redis',
    asks: 0,
    async get() {
      this.asks += 1;
      throw new Error('Connection is closed.');
    },
    async set() {
      this.asks += 1;
      throw new Error('Connection is closed.');
    },
    close: async () => undefined,
  };
}

describe('the quote cache over a shared store', () => {
  it('caches in process while the shared store fails, without an error reaching the caller', async () => {
    const shared = failingStore();
    const cache = new QuoteCache(shared, log);
    expect(await cache.get('AAPL')).toBeUndefined();
    await cache.set('AAPL', found, 15_000);
    expect(await cache.get('AAPL')).toEqual(found);
    expect(shared.asks).toBe(3);
    expect(cache.memory.size).toBe(1);
  });

  it('still answers from process what it cached there during an outage, once the shared store answers again (a miss there)', async () => {
    const memory = new MemoryQuoteCacheStore();
    await memory.set('AAPL', found, 15_000);
    const healthy = new MemoryQuoteCacheStore();
    const cache = new QuoteCache({ kind: 'redis', get: (symbol) => healthy.get(symbol), set: (s, l, t) => healthy.set(s, l, t), close: async () => undefined }, log, memory);
    expect(await cache.get('AAPL')).toEqual(found);
    expect(await cache.get('MSFT')).toBeUndefined();
  });

  it('writes to the shared store, not to process, while it answers', async () => {
    const healthy = new MemoryQuoteCacheStore();
    const cache = new QuoteCache({ kind: 'redis', get: (symbol) => healthy.get(symbol), set: (s, l, t) => healthy.set(s, l, t), close: async () => undefined }, log);
    await cache.set('AAPL', found, 15_000);
    expect(healthy.size).toBe(1);
    expect(cache.memory.size).toBe(0);
    expect(cache.kind).toBe('redis');
  });
});
