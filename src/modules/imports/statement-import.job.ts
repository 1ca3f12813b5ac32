import type { Clock } from '../../core/clock.js';
import type { EventMetadata } from '../../core/events.js';
import type { DatabaseConnection } from '../../infrastructure/database/database.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { metadataFor } from '../../infrastructure/event-store/handle-command.js';
import type { JobDefinition } from '../../infrastructure/jobs/job.js';
import type { JobTrace } from '../../infrastructure/jobs/job-trace.js';
import { findLiveAccount } from '../accounts/account.queries.js';
import { transactionStreamId } from '../transactions/transaction.js';
import { type BatchWriter, type ImportCounts, runImport } from './statement-import.run.js';
import { importToRun, markFinished, markRunning, recordProgress } from './statement-imports.store.js';
import { statementEntries, transactionCreatedOf } from './statement-rows.js';

export const STATEMENT_IMPORT_JOB = 'statement-import';

export const statementImportJobId = (importId: string) => `statement-import-${importId}`;

export interface StatementImportInput {
  readonly userId: string;
  readonly importId: string;
  readonly trace?: JobTrace;
}

export interface StatementImportDependencies {
  readonly database: Pick<DatabaseConnection, 'db'>;
  readonly eventStore: EventStore;
  readonly clock: Clock;
}

/** What the activity of an imported transaction shows as its request: the import it came from. */
export const importRequestId = (importId: string) => `import-${importId}`;

/**
 * Runs a queued import: its rows in batches, each batch's transactions created in one bulk append
 * (actor `system`, request `import-<id>`), the import's counts updated as each batch lands. A run
 * stopped part-way starts again from the last batch it recorded; its ids are the rows' own, so a
 * batch written twice appends nothing the second time.
 */
export function statementImportJob(dependencies: StatementImportDependencies): JobDefinition<StatementImportInput> {
  return {
    name: STATEMENT_IMPORT_JOB,
    async handle({ userId, importId }) {
      await runStatementImport(dependencies, userId, importId);
    },
  };
}

/** The job's work, also run by `ledgerline import` in the operator's own process. */
export async function runStatementImport(
  { database, eventStore, clock }: StatementImportDependencies,
  userId: string,
  importId: string,
  onProgress?: (counts: ImportCounts) => void,
): Promise<ImportCounts | null> {
  const { db } = database;
  const queued = await importToRun(db, userId, importId);
  if (!queued || queued.file === null || queued.status === 'completed' || queued.status === 'failed') return null;
  const account = await findLiveAccount(db, userId, queued.account_id);
  if (account?.source !== 'manual') {
    await markFinished(db, importId, { error: account ? 'The account is no longer a manual one.' : 'The account was deleted.' }, clock.now());
    return null;
  }
  await markRunning(db, importId);
  const metadata = metadataFor({ userId, actor: 'system', requestId: importRequestId(importId), correlationId: queued.correlation_id, causationId: importRequestId(importId), now: clock.now() });
  const counts = await runImport({
    accountId: queued.account_id,
    entries: statementEntries(queued.format, queued.file, queued.options),
    write: batchWriter(eventStore, queued.account_id, metadata),
    from: { rowsDone: queued.rows_done, imported: queued.imported, duplicates: queued.duplicates, failed: queued.failed },
    progress: async (counts, failedRows) => {
      await recordProgress(db, importId, counts, failedRows);
      onProgress?.(counts);
    },
  });
  await markFinished(db, importId, {}, clock.now());
  return counts;
}

/**
 * Creates a batch's streams in one bulk append. A stream that exists is a duplicate, unless this
 * import created it (a run of it that stopped after the append but before recording the batch).
 */
function batchWriter(store: EventStore, accountId: string, metadata: EventMetadata): BatchWriter {
  return async (rows) => {
    const { existing } = await store.appendToNewStreams(
      rows.map(({ transactionId, transaction }) => ({
        streamId: transactionStreamId(transactionId),
        events: [{ type: 'TransactionCreated', data: transactionCreatedOf(transactionId, accountId, transaction), metadata }],
      })),
    );
    if (existing.length === 0) return { duplicates: 0 };
    const created = await store.firstEventOfType(existing, 'TransactionCreated');
    const ours = existing.filter((streamId) => created.get(streamId)?.metadata.requestId === metadata.requestId).length;
    return { duplicates: existing.length - ours };
  };
}

/** A dry run's writer: counts the rows whose transactions exist, writes nothing. */
export function lookupOnlyWriter(store: EventStore): BatchWriter {
  return async (rows) => {
    const created = await store.firstEventOfType(
      rows.map(({ transactionId }) => transactionStreamId(transactionId)),
      'TransactionCreated',
    );
    return { duplicates: created.size };
  };
}

