import { QuoteNotFoundError, type QuoteLookup } from '../quote.port.js';
import { formatIsoDate, parseIsoDate, sessionDay, sessionIndex } from './market-calendar.js';
import { brownianAt, gaussian, hashText, WALK_SESSIONS } from './price-walk.js';
import { SANDBOX_SECURITIES, type SandboxSecurity } from './security-universe.js';

/**
 * The sandbox market: every security's daily close follows a geometric random walk through its
 * reference price on the reference session. A price depends only on the seed, the symbol and
 * the session, so quotes and brokerage valuations built on `priceCentsOn` always agree.
 */
export const DEFAULT_MARKET_SEED = 20_250_602;
const REFERENCE_SESSION = sessionIndex(parseIsoDate('2025-06-02'));
const SESSIONS_PER_YEAR = 252;

export interface SandboxMarket {
  readonly seed: number;
  readonly securities: readonly SandboxSecurity[];
  security(symbol: string): SandboxSecurity | undefined;
  /** The session a date falls in: the date itself on a weekday, else the Friday before. */
  sessionOn(date: string): string;
  /** The close of the session on or before `date`, in cents. Throws `QuoteNotFoundError`. */
  priceCentsOn(symbol: string, date: string): number;
  /** The same close as a decimal string with two places. */
  priceOn(symbol: string, date: string): string;
  quoteOn(symbol: string, date: string): QuoteLookup;
}

interface Walker {
  readonly security: SandboxSecurity;
  readonly stream: number;
  readonly referenceValue: number;
  readonly dailyVolatility: number;
  readonly dailyDrift: number;
}

export function formatPriceCents(cents: number): string {
  const magnitude = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(magnitude / 100)}.${magnitude % 100 < 10 ? '0' : ''}${magnitude % 100}`;
}

export function createSandboxMarket(options: { seed?: number } = {}): SandboxMarket {
  const seed = (options.seed ?? DEFAULT_MARKET_SEED) >>> 0;
  const bySymbol = new Map(SANDBOX_SECURITIES.map((security) => [security.symbol, security]));
  const walkers = new Map<string, Walker>();

  const walker = (symbol: string): Walker => {
    let found = walkers.get(symbol);
    if (found === undefined) {
      const security = bySymbol.get(symbol);
      if (security === undefined) throw new QuoteNotFoundError(symbol);
      const stream = hashText(symbol, seed);
      found = {
        security,
        stream,
        referenceValue: brownianAt(stream, REFERENCE_SESSION),
        dailyVolatility: security.annualVolatility / Math.sqrt(SESSIONS_PER_YEAR),
        dailyDrift: security.annualDrift / SESSIONS_PER_YEAR,
      };
      walkers.set(symbol, found);
    }
    return found;
  };
  const closeCents = (w: Walker, session: number): number => {
    const logReturn = w.dailyDrift * (session - REFERENCE_SESSION) + w.dailyVolatility * (brownianAt(w.stream, session) - w.referenceValue);
    return Math.max(1, Math.round(w.security.referencePrice * Math.exp(logReturn) * 100));
  };
  const sessionOf = (date: string): number => {
    const session = sessionIndex(parseIsoDate(date));
    if (session < 1 || session > WALK_SESSIONS) throw new RangeError(`${date} is outside the sandbox market's span`);
    return session;
  };

  const priceCentsOn = (symbol: string, date: string): number => closeCents(walker(symbol), sessionOf(date));

  return {
    seed,
    securities: SANDBOX_SECURITIES,
    security: (symbol) => bySymbol.get(symbol),
    sessionOn: (date) => formatIsoDate(sessionDay(sessionOf(date))),
    priceCentsOn,
    priceOn: (symbol, date) => formatPriceCents(priceCentsOn(symbol, date)),
    quoteOn(symbol, date) {
      if (!bySymbol.has(symbol)) return { found: false, symbol };
      const w = walker(symbol);
      const session = sessionOf(date);
      const close = closeCents(w, session);
      const previousClose = closeCents(w, session - 1);
      const noise = (salt: number): number => gaussian(w.stream ^ salt, session);
      const open = Math.max(1, Math.round(previousClose * Math.exp(w.dailyVolatility * 0.4 * noise(0x0be0))));
      const dayHigh = Math.round(Math.max(open, close) * (1 + w.dailyVolatility * 0.5 * Math.abs(noise(0x4164))));
      const dayLow = Math.max(1, Math.round(Math.min(open, close) * (1 - w.dailyVolatility * 0.5 * Math.abs(noise(0x10e0)))));
      const change = close - previousClose;
      return {
        found: true,
        quote: {
          symbol,
          name: w.security.name,
          price: formatPriceCents(close),
          currency: w.security.currency,
          change: formatPriceCents(change),
          changePercent: formatPriceCents(Math.round((change * 10000) / previousClose)),
          previousClose: formatPriceCents(previousClose),
          open: formatPriceCents(open),
          dayHigh: formatPriceCents(dayHigh),
          dayLow: formatPriceCents(dayLow),
          volume: Math.round(w.security.averageVolume * Math.exp(0.35 * noise(0x7011))),
          asOf: formatIsoDate(sessionDay(session)),
        },
      };
    },
  };
}
