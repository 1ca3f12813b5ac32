import { type RowToWrite, runImport } from './statement-import.run.js';
import type { StatementEntry } from './statement.js';

const accountId = '3f1c1b8e-2a44-4c4f-9a0e-1b2c3d4e5f60';
const row = (n: number, name: string, fitId: string | null = null): StatementEntry => ({ row: n, transaction: { date: '2026-11-01', amount: '-5', name, notes: null, fitId } });

async function* entries(list: readonly StatementEntry[]) {
  yield* list;
}

describe('runImport', () => {
  it('gives repeated rows of one file ids of their own, counts a repeated FITID and failed rows, and writes in batches', async () => {
    const batches: RowToWrite[][] = [];
    const counts = await runImport({
      accountId,
      entries: entries([row(2, 'Coffee'), row(3, 'coffee '), { row: 4, failure: 'bad' }, row(5, 'Tea', 'F1'), row(6, 'Tea again', 'F1')]),
      write: async (rows) => {
        batches.push([...rows]);
        return { duplicates: 0 };
      },
      batchSize: 2,
    });
    expect(counts).toEqual({ rowsDone: 5, imported: 3, duplicates: 1, failed: 1 });
    expect(batches.map((batch) => batch.length)).toEqual([2, 1]);
    const [first, second] = batches[0];
    expect(first.transactionId).not.toBe(second.transactionId);
  });

  it('gives the same ids to the same file read again, and resumes after the rows already counted', async () => {
    const file = [row(2, 'Coffee'), row(3, 'Coffee'), row(4, 'Lunch')];
    const ids = async (from?: { rowsDone: number; imported: number; duplicates: number; failed: number }) => {
      const written: string[] = [];
      const counts = await runImport({ accountId, entries: entries(file), from, write: async (rows) => (written.push(...rows.map((r) => r.transactionId)), { duplicates: 0 }) });
      return { written, counts };
    };
    const whole = await ids();
    expect((await ids()).written).toEqual(whole.written);
    const resumed = await ids({ rowsDone: 2, imported: 2, duplicates: 0, failed: 0 });
    expect(resumed.written).toEqual(whole.written.slice(2));
    expect(resumed.counts).toEqual({ rowsDone: 3, imported: 3, duplicates: 0, failed: 0 });
  });
});
