import { Param, type PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../../../core/errors.js';
import { parseTickerSymbol } from '../ticker-symbol.js';

export const TICKER_SYMBOL_PARAM = {
  name: 'symbol',
  description: 'A ticker in any case (`aapl` is `AAPL`): once upper-cased, a letter then up to 14 letters, digits, dots or dashes (`BRK.B`).',
  schema: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9.\\-]{0,14}$', example: 'AAPL' },
} as const;

/** The `{symbol}` path segment, upper-cased; a malformed one is a 422 pointing at `["symbol"]`. */
export function TickerSymbolParam() {
  const pipe: PipeTransform<string, string> = {
    transform(value) {
      const symbol = typeof value === 'string' ? parseTickerSymbol(value) : null;
      if (symbol === null) {
        throw new ValidationFailedError([
          { code: 'invalid_string', message: 'symbol must be a letter followed by at most 14 letters, digits, dots or dashes (for example AAPL or BRK.B)', path: ['symbol'] },
        ]);
      }
      return symbol;
    },
  };
  return Param('symbol', pipe);
}
