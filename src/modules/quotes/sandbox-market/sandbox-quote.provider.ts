import type { QuoteLookup, QuoteProvider } from '../quote.port.js';
import type { SandboxMarket } from './sandbox-market.js';

const SYMBOL = /^[A-Z][A-Z0-9.-]{0,14}$/;

/** Quotes from the sandbox market for "today" as the clock tells it; symbols are case-insensitive. */
export function createSandboxQuoteProvider(options: { market: SandboxMarket; clock: { now(): Date } }): QuoteProvider {
  const { market, clock } = options;
  const lookup = (symbol: string): QuoteLookup => {
    const normalised = symbol.trim().toUpperCase();
    if (!SYMBOL.test(normalised)) return { found: false, symbol };
    return market.quoteOn(normalised, clock.now().toISOString().slice(0, 10));
  };
  return {
    getQuote: async (symbol) => lookup(symbol),
    getQuotes: async (symbols) => symbols.map(lookup),
  };
}
