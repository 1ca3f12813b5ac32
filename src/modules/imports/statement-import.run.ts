import type { StatementEntry, StatementTransaction } from './statement.js';
import { StatementRowKeys } from './statement-rows.js';

/** A row that could not be imported, as the import lists it. */
export interface FailedRow {
  readonly row: number;
  readonly message: string;
}

/** Failed rows listed on an import; past these, only counted. */
export const MAX_FAILED_ROWS_LISTED = 1000;
/** Transactions appended at once. */
export const IMPORT_BATCH_SIZE = 1000;

export interface ImportCounts {
  /** Rows read so far (transactions and failures alike). */
  readonly rowsDone: number;
  readonly imported: number;
  readonly duplicates: number;
  readonly failed: number;
}

export interface RowToWrite {
  readonly transactionId: string;
  readonly transaction: StatementTransaction;
}

/** Writes one batch (or, in a dry run, looks it up); says how many of its rows were there already. */
export type BatchWriter = (rows: readonly RowToWrite[]) => Promise<{ readonly duplicates: number }>;

export interface ImportRun {
  readonly accountId: string;
  readonly entries: AsyncIterable<StatementEntry>;
  readonly write: BatchWriter;
  /** Where a run that stopped part-way had got to: rows up to this one are counted already. */
  readonly from?: ImportCounts;
  /** Told after each batch: the counts so far and the rows that failed since the last call. */
  readonly progress?: (counts: ImportCounts, failedRows: readonly FailedRow[]) => Promise<void>;
  readonly batchSize?: number;
}

/**
 * Reads a statement's rows and writes them in batches. The ids come from the rows themselves
 * (StatementRowKeys), so a run again after a crash, or a second import of the same file, writes
 * nothing twice: rows in a batch that was written before count as duplicates (or, for the run's
 * own earlier attempt, as the writer says). Only one batch of rows is held at a time.
 */
export async function runImport({ accountId, entries, write, from, progress, batchSize = IMPORT_BATCH_SIZE }: ImportRun): Promise<ImportCounts> {
  const keys = new StatementRowKeys(accountId);
  const resumeAfter = from?.rowsDone ?? 0;
  let counts: ImportCounts = from ?? { rowsDone: 0, imported: 0, duplicates: 0, failed: 0 };
  let batch: RowToWrite[] = [];
  let failedRows: FailedRow[] = [];
  let rowsInBatch = 0;
  let inFileDuplicates = 0;
  const flush = async () => {
    const { duplicates } = batch.length > 0 ? await write(batch) : { duplicates: 0 };
    counts = {
      rowsDone: counts.rowsDone + rowsInBatch,
      imported: counts.imported + batch.length - duplicates,
      duplicates: counts.duplicates + duplicates + inFileDuplicates,
      failed: counts.failed + failedRows.length,
    };
    await progress?.(counts, failedRows);
    batch = [];
    failedRows = [];
    rowsInBatch = 0;
    inFileDuplicates = 0;
  };
  let rowsRead = 0;
  for await (const entry of entries) {
    rowsRead += 1;
    // Ids depend on the rows before, so a resumed run reads them all and writes from where it stopped.
    const transactionId = 'transaction' in entry ? keys.transactionIdOf(entry.transaction) : null;
    if (rowsRead <= resumeAfter) continue;
    rowsInBatch += 1;
    if ('failure' in entry) failedRows.push({ row: entry.row, message: entry.failure });
    else if (transactionId === null) inFileDuplicates += 1;
    else batch.push({ transactionId, transaction: entry.transaction });
    if (batch.length >= batchSize || failedRows.length >= batchSize) await flush();
  }
  if (rowsInBatch > 0 || counts.rowsDone === 0) await flush();
  return counts;
}
