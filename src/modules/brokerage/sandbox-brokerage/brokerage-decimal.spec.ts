import fc from 'fast-check';
import { averagePriceScaled, formatCents, formatScaled, parseCents, parseScaled, valueCents } from './brokerage-decimal.js';

describe('brokerage decimals', () => {
  it('formats and parses cents and ten-thousandths exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (value) => {
        expect(parseScaled(formatScaled(value))).toBe(value);
        expect(parseCents(formatCents(value))).toBe(value);
      }),
    );
    expect(formatScaled(125000)).toBe('12.5');
    expect(formatCents(-5)).toBe('-0.05');
  });

  it('rounds values and average prices half up', () => {
    expect(valueCents(15000, 333)).toBe(500); // 1.5 × $3.33 = $4.995
    expect(valueCents(10000, 20000)).toBe(20000);
    expect(formatScaled(averagePriceScaled(1000, 30000))).toBe('3.3333');
  });
});
