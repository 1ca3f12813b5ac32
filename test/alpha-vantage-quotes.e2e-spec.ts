import { startAlphaVantageMock, type AlphaVantageMock } from './support/alpha-vantage-mock.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('quotes from Alpha Vantage (QUOTE_PROVIDER=alphavantage, over the recorded exchanges)', () => {
  let t: TestApp;
  let mock: AlphaVantageMock;
  let key: string;
  beforeAll(async () => {
    mock = await startAlphaVantageMock();
    t = await startTestApp({ env: { QUOTE_PROVIDER: 'alphavantage', ALPHA_VANTAGE_API_KEY: mock.apiKey, ALPHA_VANTAGE_BASE_URL: mock.url, QUOTE_CACHE_TTL_SECONDS: '60' } });
    ({ key } = await t.newUser(['read']));
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('answers GET /v1/tickers/{symbol}/quote with Alpha Vantage’s quote as JSON numbers, from the cache the second time', async () => {
    const body = (await t.as(key).get('/v1/tickers/ibm/quote').expect(200)).body;
    expect(body).toEqual({
      symbol: 'IBM',
      name: 'International Business Machines Corp',
      price: 228.82,
      currency: 'USD',
      change: 1.44,
      changePercent: 0.63,
      previousClose: 227.38,
      open: 227.79,
      dayHigh: 229.4,
      dayLow: 226.82,
      volume: 4233567,
      asOf: '2026-11-19',
    });
    const quotesAsked = () => mock.requests.filter((request) => request.query.get('function') === 'GLOBAL_QUOTE').length;
    const before = quotesAsked();
    await t.as(key).get('/v1/tickers/IBM/quote').expect(200);
    expect(quotesAsked()).toBe(before);
  });

  it('answers a symbol Alpha Vantage does not know 404, and its rate limit 503 QUOTE_PROVIDER_UNAVAILABLE with Retry-After, not cached', async () => {
    expect((await t.as(key).get('/v1/tickers/ZZZQ/quote').expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Quote not found' });
    mock.failNext('rate-limit-information');
    const refused = await t.as(key).get('/v1/tickers/TSCO.LON/quote').expect(503);
    expect(refused.body).toMatchObject({ code: 'QUOTE_PROVIDER_UNAVAILABLE' });
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await t.as(key).get('/v1/tickers/TSCO.LON/quote').expect(200)).body).toMatchObject({ symbol: 'TSCO.LON', currency: 'GBX', changePercent: -1.51 });
  });
});
