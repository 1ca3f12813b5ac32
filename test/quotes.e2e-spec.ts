import { Redis } from 'ioredis';
import request from 'supertest';
import { privateRedis, type PrivateRedis } from '../src/infrastructure/jobs/private-redis.test-support.js';
import type { QuoteLookup, QuoteProvider } from '../src/modules/quotes/quote.port.js';
import { createSandboxMarket, createSandboxQuoteProvider } from '../src/modules/quotes/sandbox-market/index.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * GET /v1/tickers/{symbol}/quote against the real application, its quote provider replaced by the
 * sandbox behind a switch the test holds: counting every call, or down, or hanging.
 */

const TIMEOUT_MS = 1500;
const clock = { now: () => new Date('2026-11-20T15:00:00.000Z') };
const market = createSandboxMarket();
const sandbox = createSandboxQuoteProvider({ market, clock });

function switchableProvider() {
  const state = { mode: 'sandbox' as 'sandbox' | 'down' | 'hang', delayMs: 0, calls: [] as string[] };
  const provider: QuoteProvider = {
    async getQuote(symbol): Promise<QuoteLookup> {
      state.calls.push(symbol);
      if (state.mode === 'down') throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
      if (state.mode === 'hang') return new Promise<QuoteLookup>(() => undefined);
      if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      return sandbox.getQuote(symbol);
    },
    getQuotes: (symbols) => Promise.all(symbols.map((symbol) => provider.getQuote(symbol))),
  };
  return { state, provider };
}

const callsFor = (calls: string[], symbol: string) => calls.filter((call) => call === symbol).length;

async function timed<T>(work: () => PromiseLike<T>): Promise<{ ms: number; response: T }> {
  const started = Date.now();
  const response = await work();
  return { ms: Date.now() - started, response };
}

describe('market quotes', () => {
  const { state, provider } = switchableProvider();
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ clock, quoteProvider: provider, env: { QUOTE_PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS) } });
    ({ key } = await t.newUser(['read']));
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => {
    state.mode = 'sandbox';
    state.delayMs = 0;
  });

  it('answers a known symbol written in lower case with its quote: money as JSON numbers, asOf the session', async () => {
    const body = (await t.as(key).get('/v1/tickers/aapl/quote').expect(200)).body;
    const expected = market.quoteOn('AAPL', '2026-11-20');
    if (!expected.found) throw new Error('AAPL is in the sandbox market');
    expect(body).toEqual({
      symbol: 'AAPL',
      name: 'Apple Inc.',
      price: Number(expected.quote.price),
      currency: 'USD',
      change: Number(expected.quote.change),
      changePercent: Number(expected.quote.changePercent),
      previousClose: Number(expected.quote.previousClose),
      open: Number(expected.quote.open),
      dayHigh: Number(expected.quote.dayHigh),
      dayLow: Number(expected.quote.dayLow),
      volume: expected.quote.volume,
      asOf: '2026-11-20',
    });
    for (const field of ['price', 'change', 'changePercent', 'previousClose', 'open', 'dayHigh', 'dayLow', 'volume']) expect([field, typeof body[field]]).toEqual([field, 'number']);
    expect(body.price).toBeCloseTo(body.previousClose + body.change, 2);
    // A dotted ticker is a ticker.
    expect((await t.as(key).get('/v1/tickers/brk.b/quote').expect(200)).body).toMatchObject({ symbol: 'BRK.B', asOf: '2026-11-20' });
  });

  it('answers a second ask within the TTL from the cache: the provider is called once for two calls', async () => {
    const first = (await t.as(key).get('/v1/tickers/MSFT/quote').expect(200)).body;
    const second = (await t.as(key).get('/v1/tickers/msft/quote').expect(200)).body;
    expect(second).toEqual(first);
    expect(callsFor(state.calls, 'MSFT')).toBe(1);
  });

  it('shares one provider call between concurrent requests for a symbol not yet cached', async () => {
    state.delayMs = 150;
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => t.as(key).get(`/v1/tickers/${i % 2 ? 'nvda' : 'NVDA'}/quote`).expect(200)));
    expect(new Set(responses.map((response) => JSON.stringify(response.body))).size).toBe(1);
    expect(callsFor(state.calls, 'NVDA')).toBe(1);
  });

  it('answers an unknown symbol 404 NOT_FOUND, and caches that too', async () => {
    for (let i = 0; i < 2; i += 1) expect((await t.as(key).get('/v1/tickers/ZZZQ/quote').expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Quote not found' });
    expect(callsFor(state.calls, 'ZZZQ')).toBe(1);
  });

  it('refuses a malformed symbol with a 422 pointing at ["symbol"], before the provider hears of it', async () => {
    const before = state.calls.length;
    for (const symbol of ['1ABC', 'A23456789012345X', 'AA_PL', 'AAPL%20', '%C3%9F', '-X', '$']) {
      const body = (await t.as(key).get(`/v1/tickers/${symbol}/quote`).expect(422)).body;
      expect([symbol, body]).toEqual([symbol, { success: false, error: { name: 'ValidationError', issues: [{ code: 'invalid_string', message: expect.any(String), path: ['symbol'] }] } }]);
    }
    expect(state.calls.length).toBe(before);
  });

  it('answers 503 QUOTE_PROVIDER_UNAVAILABLE with Retry-After at once when the provider is down, and does not cache the failure', async () => {
    state.mode = 'down';
    const { ms, response } = await timed(() => t.as(key).get('/v1/tickers/GOOGL/quote').expect(503));
    expect(response.body).toEqual({ code: 'QUOTE_PROVIDER_UNAVAILABLE', error: 'The quote provider is unavailable.' });
    expect(response.headers['retry-after']).toBe('5');
    expect(ms).toBeLessThan(TIMEOUT_MS);
    state.mode = 'sandbox';
    expect((await t.as(key).get('/v1/tickers/GOOGL/quote').expect(200)).body.symbol).toBe('GOOGL');
    expect(callsFor(state.calls, 'GOOGL')).toBe(2);
  });

  it('answers 503 QUOTE_PROVIDER_UNAVAILABLE after the timeout when the provider hangs, never later', async () => {
    state.mode = 'hang';
    const { ms, response } = await timed(() => t.as(key).get('/v1/tickers/AMZN/quote').expect(503));
    expect(response.body).toEqual({ code: 'QUOTE_PROVIDER_UNAVAILABLE', error: `The quote provider did not answer within ${TIMEOUT_MS} ms.` });
    expect(response.headers['retry-after']).toBe('5');
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(ms).toBeLessThan(TIMEOUT_MS + 3000);
    console.info(`hanging provider: 503 after ${ms} ms (timeout ${TIMEOUT_MS} ms)`);
  });

  it('needs credentials (401), and a read-only key is enough', async () => {
    const response = await request(t.server).get('/v1/tickers/AAPL/quote').expect(401);
    expect(response.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid or expired token' } });
    expect(t.openApi.check('GET', '/v1/tickers/AAPL/quote', 401, response.headers['content-type'], response.body)).toEqual([]);
    const forged = await request(t.server).get('/v1/tickers/AAPL/quote').set('Authorization', 'Bearer pf_live_forged').expect(401);
    expect(forged.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('market quotes turned off (QUOTE_PROVIDER=none)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { QUOTE_PROVIDER: 'none' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 503 QUOTE_PROVIDER_NOT_CONFIGURED without Retry-After: retrying will not help', async () => {
    const { key } = await t.newUser();
    const response = await t.as(key).get('/v1/tickers/AAPL/quote').expect(503);
    expect(response.body).toEqual({ code: 'QUOTE_PROVIDER_NOT_CONFIGURED', error: expect.stringContaining('QUOTE_PROVIDER=none') });
    expect(response.headers['retry-after']).toBeUndefined();
    // A malformed symbol is still the client's error first.
    await t.as(key).get('/v1/tickers/1ABC/quote').expect(422);
  });
});

describe('market quotes with REDIS_URL set (a private redis-server), Redis then dying', () => {
  const { state, provider } = switchableProvider();
  let redis: PrivateRedis;
  let t: TestApp;
  beforeAll(async () => {
    redis = await privateRedis();
    await redis.start();
    t = await startTestApp({ clock, quoteProvider: provider, env: { REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    // BullMQ's close waits for its Redis, so the server is back, and reconnected to, for the shutdown.
    await redis.start();
    const deadline = Date.now() + 20_000;
    while (!(await t.runtime.jobs.counts().then(() => true, () => false)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await t.close();
    await redis.stop();
  });

  it('caches in Redis, then in process once Redis is gone: no error, no wait, the provider still asked once per symbol', async () => {
    const { key } = await t.newUser();
    await t.as(key).get('/v1/tickers/aapl/quote').expect(200);
    await t.as(key).get('/v1/tickers/AAPL/quote').expect(200);
    expect(callsFor(state.calls, 'AAPL')).toBe(1);
    const inspect = new Redis(redis.url);
    expect(await inspect.pttl('ledgerline:quote:AAPL')).toBeGreaterThan(10_000);
    inspect.disconnect();

    await redis.stop();
    const first = await timed(() => t.as(key).get('/v1/tickers/msft/quote').expect(200));
    const second = await timed(() => t.as(key).get('/v1/tickers/MSFT/quote').expect(200));
    expect(second.response.body).toEqual(first.response.body);
    expect(callsFor(state.calls, 'MSFT')).toBe(1);
    expect(first.ms + second.ms).toBeLessThan(1000);
  });
});
