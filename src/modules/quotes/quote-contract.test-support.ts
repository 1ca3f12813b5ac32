import type { QuoteProvider } from './quote.port.js';

export interface QuoteHarness {
  readonly provider: QuoteProvider;
  /** A symbol the provider quotes. */
  readonly knownSymbol: string;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** The behaviour every quote adapter shows: the sandbox market and Alpha Vantage (over its recorded exchanges) both run it. */
export function quoteProviderContract(name: string, harness: () => QuoteHarness): void {
  describe(`${name}: quote port contract`, () => {
    it('answers a known symbol, in any case, with a quote as the port describes it', async () => {
      const { provider, knownSymbol } = harness();
      const lookup = await provider.getQuote(knownSymbol.toLowerCase());
      if (!lookup.found) throw new Error(`${knownSymbol} was not found`);
      const { quote } = lookup;
      expect(quote.symbol).toBe(knownSymbol);
      expect(quote.name.length).toBeGreaterThan(0);
      expect(quote.currency).toMatch(/^[A-Z]{3}$/);
      for (const price of [quote.price, quote.change, quote.previousClose, quote.open, quote.dayHigh, quote.dayLow]) expect(price).toMatch(DECIMAL);
      expect(quote.changePercent).toMatch(/^-?\d+\.\d{2}$/);
      expect(Number.isSafeInteger(quote.volume) && quote.volume >= 0).toBe(true);
      expect(quote.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Number(quote.dayLow)).toBeLessThanOrEqual(Number(quote.dayHigh));
      expect(Math.round((Number(quote.price) - Number(quote.previousClose)) * 100)).toBe(Math.round(Number(quote.change) * 100));
    });

    it('answers a symbol it does not know, and text that is no symbol, as not found, never as an error', async () => {
      const { provider } = harness();
      expect(await provider.getQuote('ZZZQX')).toEqual({ found: false, symbol: 'ZZZQX' });
      expect(await provider.getQuote('not a symbol!')).toMatchObject({ found: false });
    });

    it('answers several symbols at once, in the order asked', async () => {
      const { provider, knownSymbol } = harness();
      const lookups = await provider.getQuotes(['ZZZQX', knownSymbol]);
      expect(lookups.map((lookup) => lookup.found)).toEqual([false, true]);
    });
  });
}
