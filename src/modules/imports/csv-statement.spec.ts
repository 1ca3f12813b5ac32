import { readFileSync } from 'node:fs';
import { csvStatementEntries, dateOf, delimiterOf, moneyOf } from './csv-statement.js';
import { type StatementEntry, StatementOptionError, UnreadableStatementError } from './statement.js';

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/statements/${name}`, import.meta.url));

async function entriesOf(bytes: Buffer | string, options: Parameters<typeof csvStatementEntries>[1] = {}): Promise<StatementEntry[]> {
  const entries: StatementEntry[] = [];
  for await (const entry of csvStatementEntries(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), options)) entries.push(entry);
  return entries;
}

describe('CSV statements', () => {
  it('reads a US bank export: MM/DD/YYYY, negative amounts, quoted names with commas and quotes, thousands separators', async () => {
    const entries = await entriesOf(fixture('us-bank.csv'));
    expect(entries).toHaveLength(10);
    expect(entries[0]).toEqual({ row: 2, transaction: { date: '2026-11-02', amount: '-5.75', name: 'STARBUCKS STORE #1234, SEATTLE WA', notes: null, fitId: null } });
    expect(entries[1]).toEqual({ row: 3, transaction: { date: '2026-11-03', amount: '2450', name: 'ACME CORP PAYROLL', notes: 'Direct deposit', fitId: null } });
    expect(entries[8]).toMatchObject({ transaction: { name: 'COMCAST CABLE COMM., "XFINITY"', amount: '-89' } });
    expect(entries[9]).toMatchObject({ row: 11, transaction: { date: '2026-11-17', amount: '2450' } });
  });

  it('reads a European export: `;` separators, DD/MM/YYYY, decimal commas, Debit and Credit columns (money out negative)', async () => {
    const entries = await entriesOf(fixture('european-bank.csv'));
    expect(entries.map((entry) => ('transaction' in entry ? [entry.transaction.date, entry.transaction.amount, entry.transaction.name] : entry))).toEqual([
      ['2026-11-02', '-45.2', 'Carrefour Market Paris 11'],
      ['2026-11-03', '3250', 'Salaire Novembre ACME SA'],
      ['2026-11-05', '-1120.5', 'SNCF Voyageurs'],
      ['2026-11-06', '-8.75', 'Boulangerie Dupont; rue de la Paix'],
      ['2026-11-09', '120.5', 'Remboursement SNCF'],
      ['2026-11-13', '-12.4', 'Café de Flore'],
      ['2026-11-15', '-86', 'EDF Électricité'],
    ]);
  });

  it('lists a bad row with its row number and reads the rows after it', async () => {
    const entries = await entriesOf('Date,Description,Amount\n2026-11-01,Coffee,-3.50\n2026-02-30,Bad day,-1\n2026-11-02,Tea,12.345678\n2026-11-03,,4\n2026-11-04,Lunch,-12\n');
    expect(entries).toEqual([
      { row: 2, transaction: expect.objectContaining({ name: 'Coffee' }) },
      { row: 3, failure: expect.stringContaining('date "2026-02-30"') },
      { row: 4, failure: expect.stringContaining('at most 4 decimals') },
      { row: 5, failure: expect.stringContaining('name is empty') },
      { row: 6, transaction: expect.objectContaining({ name: 'Lunch', amount: '-12' }) },
    ]);
  });

  it('takes column names and the date format from the query, case-insensitively, and skips a preamble before the header', async () => {
    const file = 'Account: 1234\nPeriod: November\nBooked,Who,Value,Comment\n01/11/2026,Rent,-900,Flat\n';
    const entries = await entriesOf(file, { dateColumn: 'booked', nameColumn: 'WHO', amountColumn: 'Value', notesColumn: 'comment', dateFormat: 'DD/MM/YYYY' });
    expect(entries).toEqual([{ row: 4, transaction: { date: '2026-11-01', amount: '-900', name: 'Rent', notes: 'Flat', fitId: null } }]);
  });

  it('refuses a file without a recognisable header, and an override naming no column', async () => {
    await expect(entriesOf('a,b,c\n1,2,3\n')).rejects.toThrow(UnreadableStatementError);
    await expect(entriesOf('Date,Name\n2026-11-01,x\n')).rejects.toThrow(/no Amount column/);
    await expect(entriesOf('Date,Name,Amount\n2026-11-01,x,1\n', { notesColumn: 'Remarks' })).rejects.toThrow(StatementOptionError);
  });

  it('refuses a CSV that cannot be parsed, with the line it stops at', async () => {
    const failure = await entriesOf('Date,Name,Amount\n2026-11-01,"unterminated,1\n2026-11-02,b,2\n').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnreadableStatementError);
    expect((failure as UnreadableStatementError).line).toBeGreaterThanOrEqual(2);
  });

  it('reads amounts and dates as banks write them', () => {
    expect(['1,234.56', '(12.50)', '12.50-', '$-3', '+7', '.5', '1,23'].map((text) => moneyOf(text, false))).toEqual(['1234.56', '-12.5', '-12.5', '-3', '7', '0.5', null]);
    expect(['1.234,56', '-0,5', '12,5', '1 234,56'].map((text) => moneyOf(text, true))).toEqual(['1234.56', '-0.5', '12.5', '1234.56']);
    expect([dateOf('11/02/2026', 'MM/DD/YYYY'), dateOf('11/02/2026', 'DD/MM/YYYY'), dateOf('2026-11-02', 'DD/MM/YYYY'), dateOf('13/02/2026', 'MM/DD/YYYY'), dateOf('20.11.2026', 'DD/MM/YYYY')]).toEqual([
      '2026-11-02',
      '2026-02-11',
      '2026-11-02',
      null,
      '2026-11-20',
    ]);
    expect([delimiterOf('a;b;"c,d"'), delimiterOf('a,b'), delimiterOf('a\tb'), delimiterOf('single')]).toEqual([';', ',', '\t', ',']);
  });
});
