import fc from 'fast-check';
import { quoteProviderContract } from '../quote-contract.test-support.js';
import { QuoteNotFoundError } from '../quote.port.js';
import { createSandboxMarket, createSandboxQuoteProvider, formatIsoDate, SANDBOX_SECURITIES } from './index.js';

const market = createSandboxMarket();
const cents = (decimal: string): number => Math.round(Number(decimal) * 100);

describe('the sandbox market', () => {
  it('lists a few hundred unique, well-formed symbols including the well-known ones', () => {
    const symbols = SANDBOX_SECURITIES.map((security) => security.symbol);
    expect(symbols.length).toBeGreaterThanOrEqual(300);
    expect(new Set(symbols).size).toBe(symbols.length);
    for (const symbol of symbols) expect(symbol).toMatch(/^[A-Z][A-Z0-9.-]{0,14}$/);
    expect(market.security('AAPL')?.name).toBe('Apple Inc.');
    for (const symbol of ['MSFT', 'VTI', 'VOO', 'BRK.B']) expect(market.security(symbol)).toBeDefined();
  });

  it('prices deterministically per day, whatever was asked before and in whichever market instance', () => {
    const dates = fc.integer({ min: 7400, max: 25000 }).map(formatIsoDate);
    const symbols = fc.constantFrom(...SANDBOX_SECURITIES.map((security) => security.symbol));
    fc.assert(
      fc.property(fc.array(fc.tuple(symbols, dates), { minLength: 1, maxLength: 20 }), (asks) => {
        const fresh = createSandboxMarket();
        const forward = asks.map(([symbol, date]) => market.priceOn(symbol, date));
        const backward = [...asks].reverse().map(([symbol, date]) => fresh.priceOn(symbol, date)).reverse();
        expect(backward).toEqual(forward);
      }),
      { numRuns: 100 },
    );
  });

  it('passes through the reference price, carries Friday over the weekend, and depends on the seed', () => {
    expect(market.priceOn('AAPL', '2025-06-02')).toBe('203.00');
    expect(market.priceOn('VTI', '2026-11-21')).toBe(market.priceOn('VTI', '2026-11-20'));
    expect(market.sessionOn('2026-11-22')).toBe('2026-11-20');
    const other = createSandboxMarket({ seed: 7 });
    const differing = SANDBOX_SECURITIES.filter((security) => other.priceOn(security.symbol, '2026-11-20') !== market.priceOn(security.symbol, '2026-11-20'));
    expect(differing.length).toBeGreaterThan(SANDBOX_SECURITIES.length * 0.9);
  });

  it('moves by about the security’s daily volatility', () => {
    const vti = market.security('VTI')!;
    const returns: number[] = [];
    for (let day = 19000; day < 20400; day += 1) {
      const [today, yesterday] = [market.priceCentsOn('VTI', formatIsoDate(day)), market.priceCentsOn('VTI', formatIsoDate(day - 1))];
      if (today !== yesterday) returns.push(Math.log(today / yesterday));
    }
    const mean = returns.reduce((sum, r) => sum + r, 0) / returns.length;
    const deviation = Math.sqrt(returns.reduce((sum, r) => sum + (r - mean) ** 2, 0) / returns.length);
    expect(deviation / (vti.annualVolatility / Math.sqrt(252))).toBeGreaterThan(0.7);
    expect(deviation / (vti.annualVolatility / Math.sqrt(252))).toBeLessThan(1.3);
  });

  it('builds a consistent quote for the session', () => {
    const lookup = market.quoteOn('MSFT', '2026-11-22');
    if (!lookup.found) throw new Error('MSFT not found');
    const { quote } = lookup;
    expect(quote).toMatchObject({ symbol: 'MSFT', name: 'Microsoft Corporation', currency: 'USD', asOf: '2026-11-20', price: market.priceOn('MSFT', '2026-11-20'), previousClose: market.priceOn('MSFT', '2026-11-19') });
    expect(cents(quote.change)).toBe(cents(quote.price) - cents(quote.previousClose));
    expect(Number(quote.changePercent)).toBeCloseTo((Number(quote.change) / Number(quote.previousClose)) * 100, 1);
    expect(cents(quote.dayLow)).toBeLessThanOrEqual(Math.min(cents(quote.open), cents(quote.price)));
    expect(cents(quote.dayHigh)).toBeGreaterThanOrEqual(Math.max(cents(quote.open), cents(quote.price)));
    expect(Number.isInteger(quote.volume) && quote.volume > 0).toBe(true);
    expect(market.quoteOn('MSFT', '2026-11-22')).toEqual(lookup);
  });

  it('answers an unknown symbol with not-found', () => {
    expect(market.quoteOn('ZZZZZ', '2026-11-20')).toEqual({ found: false, symbol: 'ZZZZZ' });
    expect(() => market.priceOn('ZZZZZ', '2026-11-20')).toThrow(QuoteNotFoundError);
  });
});

describe('the sandbox quote provider', () => {
  const provider = createSandboxQuoteProvider({ market, clock: { now: () => new Date('2026-11-20T18:00:00Z') } });

  it('quotes today’s session, case-insensitively, and reports unknown symbols as not found', async () => {
    await expect(provider.getQuote(' brk.b ')).resolves.toMatchObject({ found: true, quote: { symbol: 'BRK.B', asOf: '2026-11-20' } });
    await expect(provider.getQuote('NOPE')).resolves.toEqual({ found: false, symbol: 'NOPE' });
    await expect(provider.getQuote('not a symbol!')).resolves.toEqual({ found: false, symbol: 'not a symbol!' });
    const [voo, missing] = await provider.getQuotes(['VOO', 'XXXX']);
    expect(voo).toMatchObject({ found: true, quote: { price: market.priceOn('VOO', '2026-11-20') } });
    expect(missing).toEqual({ found: false, symbol: 'XXXX' });
  });
});

quoteProviderContract('the sandbox market', () => ({
  provider: createSandboxQuoteProvider({ market: createSandboxMarket(), clock: { now: () => new Date('2026-11-20T15:00:00.000Z') } }),
  knownSymbol: 'AAPL',
}));
