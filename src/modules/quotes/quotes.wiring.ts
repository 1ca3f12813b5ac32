import type { Logger } from 'pino';
import type { AppConfig } from '../../config/config.js';
import type { Clock } from '../../core/clock.js';
import { createAlphaVantageQuoteProvider } from './alpha-vantage/alpha-vantage-quote.provider.js';
import { QuoteCache } from './cache/quote-cache.service.js';
import { RedisQuoteCacheStore } from './cache/redis-quote-cache.store.js';
import { withCallTimeout, withQuoteCache } from './cached-quote.provider.js';
import { type QuoteLookup, type QuoteProvider, QuoteProviderUnavailableError } from './quote.port.js';
import { createSandboxMarket, createSandboxQuoteProvider } from './sandbox-market/index.js';

export const QUOTES = Symbol('Quotes');

/** What the quote operation reads: the configured provider behind its timeout and the cache. */
export interface Quotes {
  readonly providerName: string;
  readonly cacheKind: 'memory' | 'redis';
  /** Rejects with QuoteProviderUnavailableError when the provider cannot answer or none is configured. */
  getQuote(symbol: string): Promise<QuoteLookup>;
  /** Nest calls this when the application closes. */
  onApplicationShutdown(): Promise<void>;
}

const replacedProviders = new WeakMap<object, QuoteProvider>();

/**
 * Uses `provider` instead of the configured one for the application built on `runtime` (tests:
 * a counting, failing or hanging provider). It still sits behind the timeout and the cache.
 * Call it before the HTTP application is created.
 */
export function replaceQuoteProvider(runtime: object, provider: QuoteProvider): void {
  replacedProviders.set(runtime, provider);
}

export function replacedQuoteProvider(runtime: object): QuoteProvider | undefined {
  return replacedProviders.get(runtime);
}

/**
 * The sandbox market is the default seed's, priced on the service clock's day: the brokerage
 * sandbox values holdings with the same market, so a quote and a position's price agree. Alpha
 * Vantage's calls are abandoned at the quote operation's own timeout.
 */
export function configuredQuoteProvider(config: AppConfig, clock: Clock): QuoteProvider | null {
  if (config.quoteProvider === 'none') return null;
  if (config.quoteProvider === 'alphavantage') {
    if (config.alphaVantage === null) throw new Error('QUOTE_PROVIDER=alphavantage without its key: loadConfig refuses that');
    return createAlphaVantageQuoteProvider({ apiKey: config.alphaVantage.apiKey, baseUrl: config.alphaVantage.baseUrl, timeoutMs: config.quoteProviderTimeoutMs });
  }
  return createSandboxQuoteProvider({ market: createSandboxMarket(), clock });
}

export function createQuotes(options: { config: AppConfig; clock: Clock; log: Logger; provider?: QuoteProvider; redisKeyPrefix?: string }): Quotes {
  const { config, clock, log } = options;
  const provider = options.provider ?? configuredQuoteProvider(config, clock);
  const cache = new QuoteCache(config.redisUrl ? RedisQuoteCacheStore.connect(config.redisUrl, options.redisKeyPrefix) : null, log);
  const cached = provider ? withQuoteCache(withCallTimeout(provider, config.quoteProviderTimeoutMs, log), cache, config.quoteCacheTtlSeconds * 1000) : null;
  return {
    providerName: options.provider ? 'replaced' : config.quoteProvider,
    cacheKind: cache.kind,
    async getQuote(symbol) {
      if (cached === null) throw new QuoteProviderUnavailableError('not_configured', 'Market quotes are turned off on this service (QUOTE_PROVIDER=none).');
      return cached.getQuote(symbol);
    },
    onApplicationShutdown: () => cache.close(),
  };
}
