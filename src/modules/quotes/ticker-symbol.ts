/** A ticker as the API names one once upper-cased: a letter, then up to 14 letters, digits, dots or dashes. */
export const TICKER_SYMBOL = /^[A-Z][A-Z0-9.-]{0,14}$/;

/**
 * Clients may write a ticker in any case; the API's form is upper case. Only ASCII letters are
 * folded: a Unicode upper-casing would turn `ß` into `SS` or `ﬁ` into `FI` and accept them.
 */
export function parseTickerSymbol(raw: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9.-]{0,14}$/.test(raw)) return null;
  const symbol = raw.toUpperCase();
  return TICKER_SYMBOL.test(symbol) ? symbol : null;
}
