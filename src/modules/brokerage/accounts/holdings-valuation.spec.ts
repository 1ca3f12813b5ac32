import fc from 'fast-check';
import { formatCents, toCents, valueHoldings } from './holdings-valuation.js';

describe('holdings valuation', () => {
  it('sums positions and cash exactly, to the cent', () => {
    expect(valueHoldings('0.1', ['0.2', '1234567890.99'])).toEqual({ cash: '0.10', holdingsValue: '1234567891.19', totalValue: '1234567891.29' });
    expect(valueHoldings('-5', [])).toEqual({ cash: '-5.00', holdingsValue: '0.00', totalValue: '-5.00' });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e11, max: 1e11 })), (cents) => {
        const total = cents.reduce((sum, value) => sum + BigInt(value), 0n);
        expect(valueHoldings('0', cents.map((value) => formatCents(BigInt(value)))).holdingsValue).toBe(formatCents(total));
      }),
    );
  });

  it('rounds amounts with more places half away from zero, and refuses what is not a decimal', () => {
    expect([toCents('1.005'), toCents('-1.005'), toCents('1.0049'), toCents('7')]).toEqual([101n, -101n, 100n, 700n]);
    expect(() => toCents('1e3')).toThrow(RangeError);
  });
});
