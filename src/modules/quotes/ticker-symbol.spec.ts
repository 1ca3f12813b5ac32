import { parseTickerSymbol } from './ticker-symbol.js';

describe('ticker symbols', () => {
  it('upper-cases a ticker written in any case', () => {
    expect(parseTickerSymbol('aapl')).toBe('AAPL');
    expect(parseTickerSymbol('Brk.b')).toBe('BRK.B');
    expect(parseTickerSymbol('rds-a')).toBe('RDS-A');
    expect(parseTickerSymbol('V')).toBe('V');
    expect(parseTickerSymbol('A23456789012345')).toBe('A23456789012345');
  });

  it('refuses what is not a letter followed by at most 14 letters, digits, dots or dashes', () => {
    for (const raw of ['', '1ABC', '.A', '-A', 'A23456789012345X', 'AA PL', 'AAPL ', ' AAPL', 'AA/PL', 'AA_PL', 'AAPL\u0000', 'A$']) expect([raw, parseTickerSymbol(raw)]).toEqual([raw, null]);
  });

  it('folds ASCII letters only: Unicode upper-casing must not make a ticker of ß or ﬁ', () => {
    for (const raw of ['aß', 'ﬁ', 'stra\u00dfe', 'ı', 'ÅAPL']) expect([raw, parseTickerSymbol(raw)]).toEqual([raw, null]);
  });
});
