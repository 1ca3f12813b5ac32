import { fromUnits, toUnits } from './decimal-units.js';

describe('decimal units', () => {
  it('reads and writes signed decimal strings exactly', () => {
    expect(toUnits('-15.49')).toBe(-154_900);
    expect(toUnits('2150')).toBe(21_500_000);
    expect(toUnits('0.00005')).toBe(1);
    expect(fromUnits(-154_900)).toBe('-15.49');
    expect(fromUnits(813_630 / 10)).toBe('8.1363');
    expect(fromUnits(-0)).toBe('0');
    expect(() => toUnits('12,50')).toThrow(RangeError);
  });
});
