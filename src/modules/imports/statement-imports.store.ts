import { type Kysely, sql } from 'kysely';
import type { Database } from '../../infrastructure/database/schema.js';
import { type OutboxJob, writeJobs } from '../../infrastructure/jobs/job-outbox.js';
import type { CsvStatementOptions } from './csv-statement.js';
import type { StatementFormat } from './statement.js';
import { statementImportJobId } from './statement-import.job.js';
import { type FailedRow, type ImportCounts, MAX_FAILED_ROWS_LISTED } from './statement-import.run.js';

import type { ImportStatus } from '../../infrastructure/database/schema.js';

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const satisfies readonly ImportStatus[];
export type { ImportStatus };

/** An import as GET /imports/{importId} answers it. */
export interface StatementImport {
  readonly id: string;
  readonly accountId: string;
  readonly status: ImportStatus;
  readonly format: StatementFormat;
  readonly totalRows: number;
  readonly imported: number;
  readonly duplicates: number;
  readonly failed: number;
  readonly failedRows: readonly FailedRow[];
  readonly error: string | null;
  readonly createdAt: string;
  readonly completedAt: string | null;
}

export interface NewStatementImport {
  readonly id: string;
  readonly userId: string;
  readonly accountId: string;
  readonly format: StatementFormat;
  readonly options: CsvStatementOptions;
  readonly file: Buffer;
  readonly totalRows: number;
  readonly correlationId: string;
  readonly createdAt: Date;
}

/**
 * The import's row, its file and its job, in one transaction: nobody hears it was queued before
 * all three are stored. No job: the operator's command line runs the import itself.
 */
export async function recordImport(db: Kysely<Database>, row: NewStatementImport, job: OutboxJob | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('statement_imports')
      .values({
        id: row.id,
        user_id: row.userId,
        account_id: row.accountId,
        format: row.format,
        options: JSON.stringify(row.options) as never,
        file: row.file,
        status: 'queued',
        total_rows: row.totalRows,
        correlation_id: row.correlationId,
        created_at: row.createdAt,
      })
      .execute();
    if (job) await writeJobs(trx, [job]);
  });
}

const LISTED_COLUMNS = ['id', 'account_id', 'status', 'format', 'total_rows', 'imported', 'duplicates', 'failed', 'failed_rows', 'error', 'created_at', 'completed_at'] as const;

export async function importOf(db: Kysely<Database>, userId: string, importId: string): Promise<StatementImport | undefined> {
  const row = await db.selectFrom('statement_imports').select(LISTED_COLUMNS).where('id', '=', importId).where('user_id', '=', userId).executeTakeFirst();
  if (!row) return undefined;
  // A job that used up its retries is marked failed in the outbox (kept a week): its import has failed too.
  const gaveUp =
    row.status === 'queued' || row.status === 'running'
      ? await db.selectFrom('job_outbox').select('last_error').where('job_id', '=', statementImportJobId(importId)).where('failed_at', 'is not', null).executeTakeFirst()
      : undefined;
  return {
    id: row.id,
    accountId: row.account_id,
    status: gaveUp ? 'failed' : row.status,
    format: row.format,
    totalRows: row.total_rows,
    imported: row.imported,
    duplicates: row.duplicates,
    failed: row.failed,
    failedRows: row.failed_rows,
    error: gaveUp ? `The import stopped: ${gaveUp.last_error ?? 'its job failed'}` : row.error,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}

/** What the job needs to run an import: its file and where it had got to. */
export async function importToRun(db: Kysely<Database>, userId: string, importId: string) {
  const row = await db
    .selectFrom('statement_imports')
    .select(['account_id', 'format', 'options', 'file', 'status', 'rows_done', 'imported', 'duplicates', 'failed', 'correlation_id'])
    .where('id', '=', importId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && { ...row, options: row.options as CsvStatementOptions };
}

export async function markRunning(db: Kysely<Database>, importId: string): Promise<void> {
  await db.updateTable('statement_imports').set({ status: 'running' }).where('id', '=', importId).where('status', '=', 'queued').execute();
}

/** The counts after a batch, and its failed rows added to the list while it has room. */
export async function recordProgress(db: Kysely<Database>, importId: string, counts: ImportCounts, failedRows: readonly FailedRow[]): Promise<void> {
  const listed = failedRows.slice(0, MAX_FAILED_ROWS_LISTED);
  await db
    .updateTable('statement_imports')
    .set({
      rows_done: counts.rowsDone,
      imported: counts.imported,
      duplicates: counts.duplicates,
      failed: counts.failed,
      failed_rows:
        listed.length === 0
          ? sql`failed_rows`
          : sql`CASE WHEN jsonb_array_length(failed_rows) >= ${MAX_FAILED_ROWS_LISTED} THEN failed_rows
                     ELSE (SELECT coalesce(jsonb_agg(f ORDER BY n), '[]') FROM jsonb_array_elements(failed_rows || ${JSON.stringify(listed)}::jsonb) WITH ORDINALITY AS e(f, n) WHERE n <= ${MAX_FAILED_ROWS_LISTED}) END`,
    } as never)
    .where('id', '=', importId)
    .execute();
}

/** The import's end: its file is not kept past it. */
export async function markFinished(db: Kysely<Database>, importId: string, outcome: { readonly error?: string }, at: Date): Promise<void> {
  await db
    .updateTable('statement_imports')
    .set({ status: outcome.error === undefined ? 'completed' : 'failed', error: outcome.error ?? null, completed_at: at, file: null })
    .where('id', '=', importId)
    .execute();
}
