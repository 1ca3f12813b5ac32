import type { Kysely } from 'kysely';
import { DomainRuleError, NotFoundError, ValidationFailedError } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import type { CsvStatementOptions } from './csv-statement.js';
import { type StatementEntry, type StatementFormat, StatementOptionError, UnreadableStatementError } from './statement.js';
import { lookupOnlyWriter, STATEMENT_IMPORT_JOB, type StatementImportInput, statementImportJobId } from './statement-import.job.js';
import { type FailedRow, MAX_FAILED_ROWS_LISTED, runImport } from './statement-import.run.js';
import { findLiveAccount } from '../accounts/account.queries.js';
import { importOf, recordImport, type StatementImport } from './statement-imports.store.js';
import { statementEntries } from './statement-rows.js';

export interface Statement {
  readonly userId: string;
  readonly accountId: string;
  readonly format: StatementFormat;
  readonly options: CsvStatementOptions;
  readonly file: Buffer;
}

/**
 * What a request asks of imports: the account checked, the file read through once (an unreadable
 * one is refused before anything is kept: 422 with its line), then the import, its file and its
 * job stored together, or for a dry run the counts an import would make.
 */
export class StatementImports {
  constructor(
    readonly db: Kysely<Database>,
    private readonly store: EventStore,
    /** Tells this process's outbox relay a job was written, so it need not wait for its next look. */
    private readonly jobsWritten: () => void,
  ) {}

  async requireManualAccount(userId: string, accountId: string): Promise<void> {
    const account = await findLiveAccount(this.db, userId, accountId);
    if (!account) throw new NotFoundError('Account');
    if (account.source !== 'manual') throw new DomainRuleError('ACCOUNT_NOT_MANUAL', 'Statements can be imported only into manual accounts; this one is synced from its provider.');
  }

  /** `queued: false`: the import is recorded without its job, for the caller to run (`ledgerline import`). */
  async queue(statement: Statement & { importId: string; correlationId: string; requestId: string; now: Date }, queued = true): Promise<StatementImport> {
    const existing = await importOf(this.db, statement.userId, statement.importId);
    if (existing) return existing;
    const totalRows = await readable(countRows(statementEntries(statement.format, statement.file, statement.options)));
    const input: StatementImportInput = { userId: statement.userId, importId: statement.importId, trace: { correlationId: statement.correlationId, causationId: statement.requestId } };
    await recordImport(
      this.db,
      { id: statement.importId, userId: statement.userId, accountId: statement.accountId, format: statement.format, options: statement.options, file: statement.file, totalRows, correlationId: statement.correlationId, createdAt: statement.now },
      queued ? { name: STATEMENT_IMPORT_JOB, input, jobId: statementImportJobId(statement.importId), cause: { requestId: statement.requestId, correlationId: statement.correlationId } } : null,
    );
    if (queued) this.jobsWritten();
    return (await importOf(this.db, statement.userId, statement.importId)) as StatementImport;
  }

  async dryRun(statement: Statement, now: Date): Promise<StatementImport> {
    const failedRows: FailedRow[] = [];
    const counts = await readable(
      runImport({
        accountId: statement.accountId,
        entries: statementEntries(statement.format, statement.file, statement.options),
        write: lookupOnlyWriter(this.store),
        progress: async (_counts, failed) => {
          failedRows.push(...failed.slice(0, MAX_FAILED_ROWS_LISTED - failedRows.length));
        },
      }),
    );
    return {
      id: '00000000-0000-4000-8000-000000000000',
      accountId: statement.accountId,
      status: 'completed',
      format: statement.format,
      totalRows: counts.rowsDone,
      imported: counts.imported,
      duplicates: counts.duplicates,
      failed: counts.failed,
      failedRows,
      error: null,
      createdAt: now.toISOString(),
      completedAt: now.toISOString(),
    };
  }
}

async function countRows(entries: AsyncIterable<StatementEntry>): Promise<number> {
  let rows = 0;
  for await (const _entry of entries) rows += 1;
  return rows;
}

/** A file that cannot be read, or a query naming what it does not hold, as the 422 that says where. */
async function readable<Result>(reading: Promise<Result>): Promise<Result> {
  try {
    return await reading;
  } catch (error) {
    if (error instanceof UnreadableStatementError) throw new ValidationFailedError([{ code: 'custom', message: error.message, path: ['body', 'line', error.line] }]);
    if (error instanceof StatementOptionError) throw new ValidationFailedError([{ code: 'custom', message: error.message, path: [error.parameter] }]);
    throw error;
  }
}
