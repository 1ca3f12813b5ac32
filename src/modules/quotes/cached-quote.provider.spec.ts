import { createLogger } from '../../infrastructure/logging/logger.js';
import { QuoteCache } from './cache/quote-cache.service.js';
import { MemoryQuoteCacheStore } from './cache/quote-cache.js';
import { withCallTimeout, withQuoteCache } from './cached-quote.provider.js';
import { type QuoteLookup, type QuoteProvider, QuoteProviderUnavailableError } from './quote.port.js';
import { createSandboxMarket, createSandboxQuoteProvider } from './sandbox-market/index.js';

const log = createLogger('silent');
const sandbox = createSandboxQuoteProvider({ market: createSandboxMarket(), clock: { now: () => new Date('2026-11-20T15:00:00Z') } });

/** The sandbox, counting the calls that reach it; `gate` holds every answer until released. */
function countingProvider(inner: QuoteProvider = sandbox) {
  const calls: string[] = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> | null = null;
  return {
    calls,
    hold() {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
    provider: {
      async getQuote(symbol: string): Promise<QuoteLookup> {
        calls.push(symbol);
        if (gate) await gate;
        return inner.getQuote(symbol);
      },
      getQuotes: (symbols: readonly string[]) => inner.getQuotes(symbols),
    } satisfies QuoteProvider,
  };
}

function handClock() {
  let at = 1_000_000;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('quotes through the cache', () => {
  it('asks the provider once per symbol per TTL, whatever the case it is asked in', async () => {
    const clock = handClock();
    const counting = countingProvider();
    const quotes = withQuoteCache(counting.provider, new QuoteCache(null, log, new MemoryQuoteCacheStore(clock.now)), 15_000);
    const first = await quotes.getQuote('aapl');
    expect(first).toMatchObject({ found: true, quote: { symbol: 'AAPL' } });
    expect(await quotes.getQuote('AAPL')).toEqual(first);
    expect(counting.calls).toEqual(['AAPL']);
    clock.advance(15_000);
    expect(await quotes.getQuote('AAPL')).toEqual(first);
    expect(counting.calls).toEqual(['AAPL', 'AAPL']);
  });

  it('caches a "not found" for the same TTL', async () => {
    const counting = countingProvider();
    const quotes = withQuoteCache(counting.provider, new QuoteCache(null, log), 15_000);
    expect(await quotes.getQuote('ZZZZ')).toEqual({ found: false, symbol: 'ZZZZ' });
    expect(await quotes.getQuote('zzzz')).toEqual({ found: false, symbol: 'ZZZZ' });
    expect(counting.calls).toEqual(['ZZZZ']);
  });

  it('shares one provider call between concurrent misses of the same symbol', async () => {
    const counting = countingProvider();
    const quotes = withQuoteCache(counting.provider, new QuoteCache(null, log), 15_000);
    counting.hold();
    const asks = [quotes.getQuote('MSFT'), quotes.getQuote('msft'), quotes.getQuote('MSFT'), quotes.getQuote('NVDA')];
    await new Promise((resolve) => setImmediate(resolve));
    counting.release();
    const answers = await Promise.all(asks);
    expect(counting.calls).toEqual(['MSFT', 'NVDA']);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[3]).toMatchObject({ found: true, quote: { symbol: 'NVDA' } });
  });

  it('does not cache a failure: the next ask tries the provider again', async () => {
    let fail = true;
    const calls: string[] = [];
    const flaky: QuoteProvider = {
      async getQuote(symbol) {
        calls.push(symbol);
        if (fail) throw new Error('connection reset');
        return sandbox.getQuote(symbol);
      },
      getQuotes: (symbols) => sandbox.getQuotes(symbols),
    };
    const quotes = withQuoteCache(withCallTimeout(flaky, 1000, log), new QuoteCache(null, log), 15_000);
    await expect(quotes.getQuote('AAPL')).rejects.toMatchObject({ name: 'QuoteProviderUnavailableError', reason: 'unavailable' });
    fail = false;
    expect(await quotes.getQuote('AAPL')).toMatchObject({ found: true });
    expect(calls).toEqual(['AAPL', 'AAPL']);
  });
});

describe('the provider call timeout', () => {
  it('fails a call that has not answered in time as unavailable, without waiting for it', async () => {
    const hanging: QuoteProvider = { getQuote: () => new Promise<QuoteLookup>(() => undefined), getQuotes: () => new Promise<QuoteLookup[]>(() => undefined) };
    const started = Date.now();
    const error = await withCallTimeout(hanging, 50, log)
      .getQuote('AAPL')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QuoteProviderUnavailableError);
    expect((error as Error).message).toBe('The quote provider did not answer within 50 ms.');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('turns a provider that throws, even synchronously, into unavailable, keeping the cause', async () => {
    const cause = new Error('boom');
    const throwing: QuoteProvider = {
      getQuote: () => {
        throw cause;
      },
      getQuotes: () => Promise.reject(cause),
    };
    const bounded = withCallTimeout(throwing, 1000, log);
    await expect(bounded.getQuote('AAPL')).rejects.toMatchObject({ reason: 'unavailable', cause });
    await expect(bounded.getQuotes(['AAPL'])).rejects.toMatchObject({ reason: 'unavailable', cause });
  });

  it('passes an answer in time through unchanged', async () => {
    expect(await withCallTimeout(sandbox, 1000, log).getQuote('AAPL')).toEqual(await sandbox.getQuote('AAPL'));
  });
});
