import { startAlphaVantageMock, type AlphaVantageMock } from '../../../../test/support/alpha-vantage-mock.js';
import { createLogger } from '../../../infrastructure/logging/logger.js';
import { QuoteCache } from '../cache/quote-cache.service.js';
import { withCallTimeout, withQuoteCache } from '../cached-quote.provider.js';
import { quoteProviderContract } from '../quote-contract.test-support.js';
import { type QuoteProvider, QuoteProviderUnavailableError } from '../quote.port.js';
import { createAlphaVantageQuoteProvider } from './alpha-vantage-quote.provider.js';

let mock: AlphaVantageMock;
let alphaVantage: QuoteProvider;

beforeAll(async () => {
  mock = await startAlphaVantageMock();
  alphaVantage = createAlphaVantageQuoteProvider({ apiKey: mock.apiKey, baseUrl: mock.url, timeoutMs: 1000 });
});
afterAll(() => mock.close());
afterEach(() => {
  mock.delayMs = 0;
});

const asked = (fn: string, symbol: string) => mock.requests.filter((request) => request.query.get('function') === fn && (request.query.get('symbol') ?? request.query.get('keywords')) === symbol).length;

quoteProviderContract('Alpha Vantage over its recorded exchanges', () => ({ provider: alphaVantage, knownSymbol: 'IBM' }));

describe('the Alpha Vantage quote adapter', () => {
  it('maps GLOBAL_QUOTE, with the name and currency SYMBOL_SEARCH gives, looked up once per symbol', async () => {
    const fresh = createAlphaVantageQuoteProvider({ apiKey: mock.apiKey, baseUrl: mock.url, timeoutMs: 1000 });
    const searches = asked('SYMBOL_SEARCH', 'TSCO.LON');
    expect(await fresh.getQuote('tsco.lon')).toEqual({
      found: true,
      quote: {
        symbol: 'TSCO.LON',
        name: 'Tesco PLC',
        price: '372.3',
        currency: 'GBX',
        change: '-5.7',
        changePercent: '-1.51',
        previousClose: '378',
        open: '374.4',
        dayHigh: '377.9',
        dayLow: '371.1',
        volume: 17528903,
        asOf: '2026-11-19',
      },
    });
    expect(await fresh.getQuote('TSCO.LON')).toMatchObject({ found: true, quote: { name: 'Tesco PLC' } });
    expect(asked('SYMBOL_SEARCH', 'TSCO.LON') - searches).toBe(1);
    expect(await fresh.getQuote('IBM')).toMatchObject({ found: true, quote: { name: 'International Business Machines Corp', price: '228.82', changePercent: '0.63', volume: 4233567 } });
  });

  it('answers a rate limit, a bad key, a failing status and silence as unavailable, never naming the key', async () => {
    const failures: unknown[] = [];
    for (const failure of ['rate-limit-information', 'rate-limit-note', 'invalid-api-key', 503]) {
      mock.failNext(failure);
      failures.push(await alphaVantage.getQuote('IBM').catch((error: unknown) => error));
    }
    mock.delayMs = 1500;
    failures.push(await alphaVantage.getQuote('IBM').catch((error: unknown) => error));
    const wrongKey = createAlphaVantageQuoteProvider({ apiKey: 'WRONG', baseUrl: mock.url, timeoutMs: 1000 });
    mock.delayMs = 0;
    failures.push(await wrongKey.getQuote('IBM').catch((error: unknown) => error));
    expect(failures.map((failure) => (failure as QuoteProviderUnavailableError).reason)).toEqual(['unavailable', 'unavailable', 'unavailable', 'unavailable', 'unavailable', 'unavailable']);
    expect(failures.every((failure) => failure instanceof QuoteProviderUnavailableError)).toBe(true);
    expect((failures[0] as Error).message).toMatch(/rate limit is 25 requests per day/);
    for (const failure of failures) expect(JSON.stringify(failure, Object.getOwnPropertyNames(failure))).not.toContain(mock.apiKey);
  });

  it('keeps a symbol’s name unknown (its own symbol) while SYMBOL_SEARCH is refused, and asks again next time', async () => {
    const fresh = createAlphaVantageQuoteProvider({ apiKey: mock.apiKey, baseUrl: mock.url, timeoutMs: 1000 });
    mock.failNext('rate-limit-information', 'SYMBOL_SEARCH');
    expect(await fresh.getQuote('IBM')).toMatchObject({ found: true, quote: { name: 'IBM', currency: 'USD', price: '228.82' } });
    expect(await fresh.getQuote('IBM')).toMatchObject({ found: true, quote: { name: 'International Business Machines Corp' } });
  });

  it('sits behind the service’s cache: a second ask within the TTL does not reach Alpha Vantage, a refusal is not cached', async () => {
    const cache = new QuoteCache(null, createLogger('silent'));
    const cached = withQuoteCache(withCallTimeout(alphaVantage, 1000, createLogger('silent')), cache, 60_000);
    const before = asked('GLOBAL_QUOTE', 'IBM');
    await cached.getQuote('ibm');
    await cached.getQuote('IBM');
    expect(asked('GLOBAL_QUOTE', 'IBM') - before).toBe(1);
    mock.failNext('rate-limit-information');
    await expect(cached.getQuote('TSCO.LON')).rejects.toBeInstanceOf(QuoteProviderUnavailableError);
    await expect(cached.getQuote('TSCO.LON')).resolves.toMatchObject({ found: true });
    await cache.close();
  });
});
