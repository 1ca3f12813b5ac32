import { isAcceptedIsoDate } from '../../core/calendar-day.js';
import { MONEY_MAGNITUDE_LIMIT, normaliseDecimal } from '../../core/money.js';

export const STATEMENT_FORMATS = ['csv', 'ofx'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/** The longest name a transaction takes (POST /transactions refuses longer ones too). */
export const MAX_NAME_LENGTH = 500;
/** The longest notes a transaction takes. */
export const MAX_NOTES_LENGTH = 100_000;

/** One transaction as a statement states it, in the account's sign convention (money out negative). */
export interface StatementTransaction {
  readonly date: string;
  /** A decimal string, at most 4 decimals. */
  readonly amount: string;
  readonly name: string;
  readonly notes: string | null;
  /** OFX's FITID: the bank's own id of the transaction, unique within the account. */
  readonly fitId: string | null;
}

/** A row of the statement: a transaction, or why that row cannot be one (`row` counts as the format says). */
export type StatementEntry = { readonly row: number; readonly transaction: StatementTransaction } | { readonly row: number; readonly failure: string };

/** A statement that cannot be read past `line` (its structure, not one row): the whole import is refused. */
export class UnreadableStatementError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'UnreadableStatementError';
  }
}

/** A query parameter that does not fit the file (a column it names is not in the header). */
export class StatementOptionError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
    this.name = 'StatementOptionError';
  }
}

/** A value quoted in a row's message, cut short: messages are bounded whatever the file holds. */
export function quoted(value: string): string {
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(shown);
}

/** Why a name or notes cannot be stored, or null when they can. */
export function textProblem(field: 'name' | 'notes', value: string, limit: number): string | null {
  if (value.includes('\u0000')) return `${field} holds a NUL character`;
  if (value.length > limit) return `${field} is longer than ${limit} characters`;
  return null;
}

/** Whitespace runs as one space, trimmed: how a name is stored. */
export function tidyText(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/** A name as dedupe compares it: tidied and lower-cased. */
export function normalisedName(name: string): string {
  return tidyText(name).toLowerCase();
}

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A plain decimal (`-1234.5`) as the amount stored, or null when it is not one the service keeps:
 * more than 4 decimals (after dropping trailing zeros) or a magnitude of 10^13 or more.
 */
export function amountOf(text: string): string | null {
  const match = PLAIN_DECIMAL.exec(text);
  if (!match) return null;
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  if (fraction.length > 4) return null;
  const whole = match[2].replace(/^0+(?=\d)/, '');
  if (whole.length > 13 || Math.abs(Number(`${whole}.${fraction || '0'}`)) >= MONEY_MAGNITUDE_LIMIT) return null;
  return normaliseDecimal(`${match[1]}${whole}${fraction ? `.${fraction}` : ''}`);
}

/** `a - b` of two amounts, exactly (ten-thousandths as bigints). */
export function subtractAmounts(a: string, b: string): string {
  const units = (text: string) => {
    const [whole, fraction = ''] = text.replace('-', '').split('.');
    const value = BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0'));
    return text.startsWith('-') ? -value : value;
  };
  const difference = units(a) - units(b);
  const magnitude = difference < 0n ? -difference : difference;
  const text = `${difference < 0n ? '-' : ''}${magnitude / 10_000n}.${String(magnitude % 10_000n).padStart(4, '0')}`;
  return normaliseDecimal(text);
}

/** A `YYYY-MM-DD` made of its parts, or null when it is not a day the service accepts. */
export function acceptedDate(year: string, month: string, day: string): string | null {
  if (!/^\d{4}$/.test(year) || !/^\d{1,2}$/.test(month) || !/^\d{1,2}$/.test(day)) return null;
  const date = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  return isAcceptedIsoDate(date) ? date : null;
}
