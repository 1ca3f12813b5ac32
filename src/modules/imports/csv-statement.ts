import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { acceptedDate, amountOf, MAX_NAME_LENGTH, MAX_NOTES_LENGTH, quoted, type StatementEntry, StatementOptionError, subtractAmounts, textProblem, tidyText, UnreadableStatementError } from './statement.js';

export const DATE_FORMATS = ['YYYY-MM-DD', 'MM/DD/YYYY', 'DD/MM/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** The query parameters that override what the header says (column names are matched case-insensitively). */
export interface CsvStatementOptions {
  readonly dateColumn?: string;
  readonly amountColumn?: string;
  readonly debitColumn?: string;
  readonly creditColumn?: string;
  readonly nameColumn?: string;
  readonly notesColumn?: string;
  readonly dateFormat?: DateFormat;
  /** `1.234,56`: a comma before the decimals, dots (or spaces) between thousands. */
  readonly decimalComma?: boolean;
  /** The charset of the Content-Type; UTF-8 when none. */
  readonly charset?: string;
}

const HEADER_NAMES = {
  date: ['date', 'posted date', 'transaction date', 'posting date', 'booking date'],
  amount: ['amount'],
  debit: ['debit'],
  credit: ['credit'],
  name: ['description', 'payee', 'name'],
  notes: ['memo', 'notes'],
} as const;

/** Records before the header a bank may put first (its name, the account, the period). */
const MAX_PREAMBLE_RECORDS = 10;
const CHUNK_BYTES = 64 * 1024;

interface Columns {
  readonly date: number;
  readonly amount: number | null;
  readonly debit: number | null;
  readonly credit: number | null;
  readonly name: number;
  readonly notes: number | null;
}

/**
 * The rows of a CSV statement, one at a time, read as a stream (the file is never held as rows).
 * The header is the first record (of the first few) that names a date and a name column; the
 * separator is the one (`,`, `;` or tab) the header line holds most of. A row's number is its
 * record's in the file, the header's being 1 when it comes first, as a spreadsheet counts rows.
 * A `;`-separated file has decimal commas unless `decimalComma=false`. Slashed dates are
 * MM/DD/YYYY, or DD/MM/YYYY in a file with decimal commas; `dateFormat` says which outright.
 */
export async function* csvStatementEntries(bytes: Buffer, options: CsvStatementOptions = {}): AsyncGenerator<StatementEntry> {
  const charset = options.charset ?? 'utf-8';
  const delimiter = delimiterOf(iconv.decode(bytes.subarray(0, Math.min(bytes.length, CHUNK_BYTES)), charset));
  // A `;` separator is the European convention, whose amounts have decimal commas; the query says otherwise outright.
  const decimalComma = options.decimalComma ?? delimiter === ';';
  const dateFormat = options.dateFormat ?? (decimalComma ? 'DD/MM/YYYY' : 'MM/DD/YYYY');
  const chunks = Readable.from(chunksOf(bytes), { objectMode: false });
  const records = chunks.pipe(iconv.decodeStream(charset)).pipe(
    parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_empty_values: true, trim: true, info: true }),
  );
  let columns: Columns | null = null;
  let record = 0;
  try {
    for await (const { record: values, info } of records as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      record += 1;
      if (columns === null) {
        columns = headerOf(values, options);
        if (columns === null && record >= MAX_PREAMBLE_RECORDS) throw new UnreadableStatementError(1, noHeader(options));
        continue;
      }
      yield entryOf(record, values, columns, { dateFormat, decimalComma }, info.lines);
    }
  } catch (error) {
    if (error instanceof CsvError) throw new UnreadableStatementError(lineOf(error), `The CSV cannot be read: ${error.message.replace(/^Invalid \w+ \w+: /, '')}`);
    throw error;
  } finally {
    chunks.destroy();
  }
  if (columns === null) throw new UnreadableStatementError(1, record === 0 ? 'The file is empty.' : noHeader(options));
}

function* chunksOf(bytes: Buffer): Generator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) yield bytes.subarray(offset, offset + CHUNK_BYTES);
}

function noHeader(options: CsvStatementOptions): string {
  const date = options.dateColumn ? quoted(options.dateColumn) : 'Date, Posted Date or Transaction Date';
  const name = options.nameColumn ? quoted(options.nameColumn) : 'Description, Payee or Name';
  return `No header row names a date column (${date}) and a name column (${name}).`;
}

function lineOf(error: CsvError): number {
  const lines = (error as unknown as { lines?: number }).lines;
  return typeof lines === 'number' && lines > 0 ? lines : 1;
}

/** The separator the first line holds most of, outside quotes. */
export function delimiterOf(start: string): string {
  const firstLine = start.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0];
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoting = false;
  for (const character of firstLine) {
    if (character === '"') quoting = !quoting;
    else if (!quoting && counts.has(character)) counts.set(character, (counts.get(character) ?? 0) + 1);
  }
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  return best[1] > 0 ? best[0] : ',';
}

/** The columns this record names, or null when it is not the header (no date or no name column). */
function headerOf(values: readonly string[], options: CsvStatementOptions): Columns | null {
  const names = values.map((value) => value.trim().toLowerCase());
  const find = (override: string | undefined, known: readonly string[]) => {
    const index = override !== undefined ? names.indexOf(override.trim().toLowerCase()) : names.findIndex((name) => known.includes(name));
    return index === -1 ? null : index;
  };
  const date = find(options.dateColumn, HEADER_NAMES.date);
  const name = find(options.nameColumn, HEADER_NAMES.name);
  if (date === null || name === null) return null;
  const columns: Columns = {
    date,
    name,
    amount: find(options.amountColumn, HEADER_NAMES.amount),
    debit: find(options.debitColumn, HEADER_NAMES.debit),
    credit: find(options.creditColumn, HEADER_NAMES.credit),
    notes: find(options.notesColumn, HEADER_NAMES.notes),
  };
  for (const parameter of ['amountColumn', 'debitColumn', 'creditColumn', 'notesColumn'] as const) {
    const named = options[parameter];
    if (named !== undefined && columns[parameter.replace('Column', '') as 'amount' | 'debit' | 'credit' | 'notes'] === null) {
      throw new StatementOptionError(parameter, `The header has no column ${quoted(named)}.`);
    }
  }
  if (columns.amount === null && (columns.debit === null || columns.credit === null)) {
    throw new UnreadableStatementError(1, 'The header names no Amount column, nor both Debit and Credit columns.');
  }
  // An Amount column named outright wins over Debit/Credit found by name, and the other way round.
  if (options.debitColumn !== undefined || options.creditColumn !== undefined) return { ...columns, amount: options.amountColumn === undefined ? null : columns.amount };
  return columns;
}

interface ValueRules {
  readonly dateFormat: DateFormat;
  readonly decimalComma: boolean;
}

function entryOf(row: number, values: readonly string[], columns: Columns, rules: ValueRules, line: number): StatementEntry {
  const cell = (index: number | null) => (index === null ? '' : (values[index] ?? '').trim());
  const failure = (message: string): StatementEntry => ({ row, failure: `${message} (line ${line})` });
  const date = dateOf(cell(columns.date), rules.dateFormat);
  if (date === null) return failure(`date ${quoted(cell(columns.date))} is not a ${rules.dateFormat} date from 1900 to 2199`);
  let amount: string | null;
  if (columns.amount !== null) {
    amount = moneyOf(cell(columns.amount), rules.decimalComma);
    if (amount === null) return failure(`amount ${quoted(cell(columns.amount))} is not an amount with at most 4 decimals`);
  } else {
    const [debitText, creditText] = [cell(columns.debit), cell(columns.credit)];
    if (debitText === '' && creditText === '') return failure('neither debit nor credit holds an amount');
    const debit = debitText === '' ? '0' : moneyOf(debitText, rules.decimalComma);
    const credit = creditText === '' ? '0' : moneyOf(creditText, rules.decimalComma);
    if (debit === null) return failure(`debit ${quoted(debitText)} is not an amount with at most 4 decimals`);
    if (credit === null) return failure(`credit ${quoted(creditText)} is not an amount with at most 4 decimals`);
    // Money out is negative whichever sign the bank wrote its debits with.
    amount = subtractAmounts(credit.replace('-', ''), debit.replace('-', ''));
    if (amountOf(amount) === null) return failure('debit and credit together are not an amount the service keeps');
  }
  const name = tidyText(cell(columns.name));
  if (name === '') return failure('the name is empty');
  const notesText = cell(columns.notes);
  const problem = textProblem('name', name, MAX_NAME_LENGTH) ?? textProblem('notes', notesText, MAX_NOTES_LENGTH);
  if (problem) return failure(problem);
  return { row, transaction: { date, amount, name, notes: notesText === '' ? null : notesText, fitId: null } };
}

const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const SLASHED = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/;

/** A cell's date: ISO always reads as ISO; slashed (or dotted) dates in the file's order of day and month. */
export function dateOf(text: string, format: DateFormat): string | null {
  const iso = ISO.exec(text);
  if (iso) return acceptedDate(iso[1], iso[2], iso[3]);
  if (format === 'YYYY-MM-DD') return null;
  const slashed = SLASHED.exec(text);
  if (!slashed) return null;
  return format === 'MM/DD/YYYY' ? acceptedDate(slashed[3], slashed[1], slashed[2]) : acceptedDate(slashed[3], slashed[2], slashed[1]);
}

/**
 * A cell's amount: a currency sign, spaces and thousands separators dropped; `(12.50)` and a
 * trailing minus are negative. With decimal commas, `1.234,56`; otherwise `1,234.56`.
 */
export function moneyOf(text: string, decimalComma: boolean): string | null {
  let value = text.replace(/[\s\u00a0\u202f$€£¥]|USD|EUR|GBP/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(value)) {
    negative = true;
    value = value.slice(1, -1);
  }
  if (value.endsWith('-')) {
    negative = !negative;
    value = value.slice(0, -1);
  }
  if (value.startsWith('+')) value = value.slice(1);
  else if (value.startsWith('-')) {
    negative = !negative;
    value = value.slice(1);
  }
  const grouped = decimalComma ? /^\d{1,3}(\.\d{3})*(,\d+)?$|^\d+(,\d+)?$/ : /^\d{1,3}(,\d{3})*(\.\d+)?$|^\d+(\.\d+)?$|^\.\d+$/;
  if (!grouped.test(value)) return null;
  const plain = decimalComma ? value.replace(/\./g, '').replace(',', '.') : value.replace(/,/g, '');
  const amount = amountOf(plain.startsWith('.') ? `0${plain}` : plain);
  if (amount === null) return null;
  return negative && amount !== '0' ? `-${amount}` : amount;
}
