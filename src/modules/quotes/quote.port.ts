/**
 * The quote provider port. Prices are decimal strings; a quote describes one trading session
 * (`asOf`, `YYYY-MM-DD`). The sandbox in `./sandbox-market` is the default implementation.
 */
export type SecurityKind = 'stock' | 'etf';

export interface Security {
  readonly symbol: string;
  readonly name: string;
  readonly kind: SecurityKind;
  readonly currency: string;
}

export interface Quote {
  readonly symbol: string;
  readonly name: string;
  /** The session's close (the last price for a session still open). */
  readonly price: string;
  readonly currency: string;
  readonly change: string;
  /** Percent, two places: "1.25" means +1.25 %. */
  readonly changePercent: string;
  readonly previousClose: string;
  readonly open: string;
  readonly dayHigh: string;
  readonly dayLow: string;
  readonly volume: number;
  /** `YYYY-MM-DD` of the trading session the quote describes. */
  readonly asOf: string;
}

export type QuoteLookup =
  | { readonly found: true; readonly quote: Quote }
  | { readonly found: false; readonly symbol: string };

export class QuoteNotFoundError extends Error {
  constructor(readonly symbol: string) {
    super(`No quote for symbol ${symbol}`);
    this.name = 'QuoteNotFoundError';
  }
}

export interface QuoteProvider {
  /** The latest quote; an unknown symbol is `{found: false}`, never an exception. */
  getQuote(symbol: string): Promise<QuoteLookup>;
  getQuotes(symbols: readonly string[]): Promise<QuoteLookup[]>;
}

/**
 * The provider could not answer (down, failing or slower than the call timeout), or none is
 * configured. Never cached: the next ask tries the provider again.
 */
export class QuoteProviderUnavailableError extends Error {
  constructor(
    readonly reason: 'unavailable' | 'not_configured',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'QuoteProviderUnavailableError';
  }
}
