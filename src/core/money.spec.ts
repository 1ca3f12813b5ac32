import { hasAtMostFourDecimals, toDecimalString } from './money.js';

describe('money', () => {
  it('keeps the exact decimal text of a JSON amount', () => {
    expect(toDecimalString(-12.5)).toBe('-12.5');
    expect(toDecimalString(0.1 + 0.2)).toBe('0.3');
    expect(toDecimalString(1234567.1234)).toBe('1234567.1234');
    expect(toDecimalString(-0)).toBe('0');
    expect(toDecimalString(42)).toBe('42');
  });

  it('accepts at most four decimals', () => {
    expect(hasAtMostFourDecimals(1.2345)).toBe(true);
    expect(hasAtMostFourDecimals(1.23456)).toBe(false);
    expect(hasAtMostFourDecimals(Number.NaN)).toBe(false);
  });
});
