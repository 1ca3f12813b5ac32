import type { Logger } from 'pino';
import type { QuoteCache } from './cache/quote-cache.service.js';
import { type QuoteLookup, type QuoteProvider, QuoteProviderUnavailableError } from './quote.port.js';

/**
 * Every call to the provider is bounded: one that fails or has not answered within `timeoutMs`
 * rejects with QuoteProviderUnavailableError, so no request waits on a provider that hangs.
 */
export function withCallTimeout(provider: QuoteProvider, timeoutMs: number, log: Logger): QuoteProvider {
  const bounded = <T>(what: string, call: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        log.warn({ quote: what, timeoutMs }, 'quote provider did not answer in time');
        reject(new QuoteProviderUnavailableError('unavailable', `The quote provider did not answer within ${timeoutMs} ms.`));
      }, timeoutMs);
      // A call that throws synchronously is a failure like any other.
      Promise.resolve()
        .then(call)
        .then(
          (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          (error: unknown) => {
            clearTimeout(timer);
            log.warn({ err: error, quote: what }, 'quote provider failed');
            reject(error instanceof QuoteProviderUnavailableError ? error : new QuoteProviderUnavailableError('unavailable', 'The quote provider is unavailable.', { cause: error }));
          },
        );
    });
  return {
    getQuote: (symbol) => bounded(symbol, () => provider.getQuote(symbol)),
    getQuotes: (symbols) => bounded(symbols.join(','), () => provider.getQuotes(symbols)),
  };
}

/**
 * Quotes through the cache: a hit never reaches the provider; a miss asks it once however many
 * callers miss the same symbol at the same time, and its answer (found or not) is cached for
 * `ttlMs`. Failures are not cached. Symbols are looked up upper-cased.
 */
export function withQuoteCache(provider: QuoteProvider, cache: QuoteCache, ttlMs: number): QuoteProvider {
  const inFlight = new Map<string, Promise<QuoteLookup>>();

  const lookUp = async (symbol: string): Promise<QuoteLookup> => {
    const cached = await cache.get(symbol);
    if (cached !== undefined) return cached;
    const lookup = await provider.getQuote(symbol);
    await cache.set(symbol, lookup, ttlMs);
    return lookup;
  };

  const getQuote = (raw: string): Promise<QuoteLookup> => {
    const symbol = raw.trim().toUpperCase();
    let shared = inFlight.get(symbol);
    if (shared === undefined) {
      // Held until the answer is cached, so a caller arriving meanwhile shares it instead of asking again.
      shared = lookUp(symbol).finally(() => inFlight.delete(symbol));
      inFlight.set(symbol, shared);
    }
    return shared;
  };

  return {
    getQuote,
    getQuotes: (symbols) => Promise.all(symbols.map(getQuote)),
  };
}
