import { normaliseDecimal } from '../../../core/money.js';
import { type Quote, type QuoteLookup, type QuoteProvider, QuoteProviderUnavailableError } from '../quote.port.js';

export interface AlphaVantageOptions {
  readonly apiKey: string;
  /** `https://www.alphavantage.co`, or another address serving its API (a proxy, the tests' recorded exchanges). */
  readonly baseUrl: string;
  /** Each call is abandoned after this long (the quote operation's own timeout answers 503 first). */
  readonly timeoutMs: number;
}

const SYMBOL = /^[A-Z][A-Z0-9.-]{0,14}$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Names looked up, kept for the process's life (a company keeps its name): one SYMBOL_SEARCH per symbol, not per quote. */
const MAX_NAMES = 10_000;

type Body = Record<string, unknown>;

/**
 * Quotes from Alpha Vantage's GLOBAL_QUOTE, the security's name and currency from SYMBOL_SEARCH
 * (once per symbol). Alpha Vantage answers a refusal with 200 and a sentence — `Information` or
 * `Note` for a rate limit, `Error Message` for a bad key — which is unavailability here (503,
 * never cached), as is any other status or an answer not in its documented shape. An unknown
 * symbol is an empty `Global Quote`: not found. The key travels only in the query Alpha Vantage
 * requires and never into an error.
 */
export function createAlphaVantageQuoteProvider(options: AlphaVantageOptions): QuoteProvider {
  const names = new Map<string, { name: string; currency: string }>();

  async function ask(query: Record<string, string>): Promise<Body> {
    const url = new URL('/query', options.baseUrl);
    for (const [key, value] of Object.entries({ ...query, apikey: options.apiKey })) url.searchParams.set(key, value);
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs), headers: { accept: 'application/json' } });
    } catch (error) {
      throw new QuoteProviderUnavailableError('unavailable', `Alpha Vantage ${query.function} did not answer: ${(error as Error).name}`);
    }
    const body = (await response.json().catch(() => null)) as unknown;
    if (!response.ok || typeof body !== 'object' || body === null || Array.isArray(body)) throw new QuoteProviderUnavailableError('unavailable', `Alpha Vantage ${query.function} answered ${response.status}`);
    const refusal = (body as Body).Information ?? (body as Body).Note ?? (body as Body)['Error Message'];
    if (typeof refusal === 'string') throw new QuoteProviderUnavailableError('unavailable', `Alpha Vantage ${query.function} refused: ${refusal.slice(0, 300)}`);
    return body as Body;
  }

  /** The security's name and currency; the symbol itself and USD when Alpha Vantage has no exact match (not kept, when it could not be asked). */
  async function describe(symbol: string): Promise<{ name: string; currency: string }> {
    const known = names.get(symbol);
    if (known) return known;
    let matches: unknown;
    try {
      matches = (await ask({ function: 'SYMBOL_SEARCH', keywords: symbol })).bestMatches;
    } catch {
      return { name: symbol, currency: 'USD' };
    }
    const match = Array.isArray(matches) ? (matches as Body[]).find((candidate) => candidate['1. symbol'] === symbol) : undefined;
    const described = { name: text(match?.['2. name']) ?? symbol, currency: text(match?.['8. currency']) ?? 'USD' };
    if (names.size >= MAX_NAMES) names.delete(names.keys().next().value as string);
    names.set(symbol, described);
    return described;
  }

  async function getQuote(raw: string): Promise<QuoteLookup> {
    const symbol = raw.trim().toUpperCase();
    if (!SYMBOL.test(symbol)) return { found: false, symbol: raw };
    const global = (await ask({ function: 'GLOBAL_QUOTE', symbol }))['Global Quote'];
    if (typeof global !== 'object' || global === null) throw new QuoteProviderUnavailableError('unavailable', 'Alpha Vantage GLOBAL_QUOTE answered without a Global Quote');
    if (Object.keys(global).length === 0) return { found: false, symbol };
    const { name, currency } = await describe(symbol);
    return { found: true, quote: quoteOf(symbol, name, currency, global as Body) };
  }

  return { getQuote, getQuotes: (symbols) => Promise.all(symbols.map(getQuote)) };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim().length > 0 ? value.trim() : null);

function decimal(global: Body, field: string): string {
  const value = text(global[field]);
  if (value === null || !DECIMAL.test(value)) throw new QuoteProviderUnavailableError('unavailable', `Alpha Vantage GLOBAL_QUOTE answered "${field}" as ${JSON.stringify(global[field])}`);
  return normaliseDecimal(value);
}

/** The port's quote from a `Global Quote`; its `10. change percent` ("0.6333%") to the port's two places. */
export function quoteOf(symbol: string, name: string, currency: string, global: Body): Quote {
  const changePercent = text(global['10. change percent'])?.replace(/%$/, '');
  const session = text(global['07. latest trading day']);
  const volume = Number(text(global['06. volume']));
  if (changePercent === undefined || !DECIMAL.test(changePercent) || session === null || !/^\d{4}-\d{2}-\d{2}$/.test(session) || !Number.isSafeInteger(volume)) {
    throw new QuoteProviderUnavailableError('unavailable', 'Alpha Vantage GLOBAL_QUOTE answered a quote not in its documented shape');
  }
  return {
    symbol,
    name,
    price: decimal(global, '05. price'),
    currency,
    change: decimal(global, '09. change'),
    changePercent: Number(changePercent).toFixed(2).replace(/^-0\.00$/, '0.00'),
    previousClose: decimal(global, '08. previous close'),
    open: decimal(global, '02. open'),
    dayHigh: decimal(global, '03. high'),
    dayLow: decimal(global, '04. low'),
    volume,
    asOf: session,
  };
}
