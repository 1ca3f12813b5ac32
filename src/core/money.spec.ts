import { hasAtMostFourDecimals, isMoneyAmount, toDecimalString } from './money.js';

describe('money', () => {
  it('keeps the exact decimal text of a JSON amount', () => {
    expect(toDecimalString(-12.5)).toBe('-12.5');
    expect(toDecimalString(0.1 + 0.2)).toBe('0.3');
    expect(toDecimalString(1234567.1234)).toBe('1234567.1234');
    expect(toDecimalString(-0)).toBe('0');
    expect(toDecimalString(42)).toBe('42');
  });

  it('writes the shortest decimal of the double, so the stored amount reads back as the number sent', () => {
    for (const amount of [123456789012.1234, -9999999999999.998, 0.0001, 1e12 + 0.5]) {
      expect(Number(toDecimalString(amount))).toBe(amount);
    }
    expect(toDecimalString(123456789012.1234)).toBe('123456789012.1234');
  });

  it('accepts at most four decimals, judged on the number as JSON writes it', () => {
    expect(hasAtMostFourDecimals(1.2345)).toBe(true);
    expect(hasAtMostFourDecimals(-0)).toBe(true);
    expect(hasAtMostFourDecimals(1e20)).toBe(true);
    expect(hasAtMostFourDecimals(1.23456)).toBe(false);
    expect(hasAtMostFourDecimals(0.1 + 0.2)).toBe(false);
    expect(hasAtMostFourDecimals(1e-7)).toBe(false);
    expect(hasAtMostFourDecimals(1e-11)).toBe(false);
    expect(hasAtMostFourDecimals(0.00001)).toBe(false);
    expect(hasAtMostFourDecimals(Number.NaN)).toBe(false);
    expect(hasAtMostFourDecimals(Number.POSITIVE_INFINITY)).toBe(false);
  });

  it('takes as money only finite numbers below 10^13 in magnitude', () => {
    expect(isMoneyAmount(9_999_999_999_999.5)).toBe(true);
    expect(isMoneyAmount(-9_999_999_999_999.5)).toBe(true);
    expect(isMoneyAmount(1e13)).toBe(false);
    expect(isMoneyAmount(1e15)).toBe(false);
    expect(isMoneyAmount(1e308)).toBe(false);
    expect(isMoneyAmount('12')).toBe(false);
    expect(isMoneyAmount(null)).toBe(false);
  });
});
