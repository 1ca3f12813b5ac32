import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { ValidationFailedError } from '../../core/errors.js';
import { isUuid, newId } from '../../core/ids.js';
import type { DatabaseConnection } from '../../infrastructure/database/database.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { STATEMENT_UPLOAD } from '../../infrastructure/http/request-body-limits.js';
import { ProgressReporter, type ProgressStream, type RebuildProgress } from '../../infrastructure/projections/rebuild-progress.js';
import { DATE_FORMATS, type CsvStatementOptions, type DateFormat } from './csv-statement.js';
import type { StatementFormat } from './statement.js';
import { runStatementImport } from './statement-import.job.js';
import { importOf } from './statement-imports.store.js';
import { StatementImports } from './statement-imports.js';

export interface ImportCommandOptions extends Omit<CsvStatementOptions, 'dateFormat'> {
  readonly format?: string;
  readonly dateFormat?: string;
  readonly dryRun?: boolean;
}

interface Output {
  log(line: string): void;
  error(line: string): void;
}

/**
 * `ledgerline import <accountId> <file>`: an operator's import, against the database like every
 * other command. It is recorded as the API records one (GET /imports/{importId} shows it) and run
 * here, with a progress bar on `progress`, rather than handed to the service's jobs; run again
 * after an interruption, it imports only what the first run did not (the ids are the rows' own).
 */
export async function importCommand(
  dependencies: { readonly database: Pick<DatabaseConnection, 'db'>; readonly eventStore: EventStore; readonly clock: Clock },
  accountId: string | undefined,
  path: string | undefined,
  options: ImportCommandOptions,
  out: Output,
  progress: ProgressStream,
): Promise<number> {
  if (!accountId || !isUuid(accountId) || !path) {
    out.error('Usage: ledgerline import <accountId> <file> [--format csv|ofx] [--dry-run] [--date-format F] [--decimal-comma] [--charset C] [--date-column C] ...');
    return 2;
  }
  const format = formatOf(options.format, path);
  if (format === null) {
    out.error(`Say --format csv or --format ofx: "${extname(path)}" does not tell.`);
    return 2;
  }
  if (options.dateFormat !== undefined && !(DATE_FORMATS as readonly string[]).includes(options.dateFormat)) {
    out.error(`--date-format is one of ${DATE_FORMATS.join(', ')}.`);
    return 2;
  }
  const { db } = dependencies.database;
  const account = await db.selectFrom('accounts').select(['user_id', 'source', 'name']).where('id', '=', accountId.toLowerCase()).where('deleted_at', 'is', null).executeTakeFirst();
  if (!account) {
    out.error(`No account ${accountId}.`);
    return 1;
  }
  if (account.source !== 'manual') {
    out.error(`ACCOUNT_NOT_MANUAL: ${account.name} is synced from its provider; statements are imported only into manual accounts.`);
    return 1;
  }
  if ((await stat(path)).size > STATEMENT_UPLOAD.maxBytes) {
    out.error(`The file is larger than ${STATEMENT_UPLOAD.maxText}.`);
    return 1;
  }
  const file = await readFile(path);
  const imports = new StatementImports(db, dependencies.eventStore, () => undefined);
  const { format: _format, dryRun, dateFormat, ...csvOptions } = options;
  const statement = { userId: account.user_id, accountId: accountId.toLowerCase(), format, options: { ...csvOptions, ...(dateFormat ? { dateFormat: dateFormat as DateFormat } : {}) }, file };
  const now = dependencies.clock.now();
  try {
    if (dryRun) {
      const counts = await imports.dryRun(statement, now);
      report(out, counts, 'Dry run, nothing written');
      return counts.failed > 0 ? 1 : 0;
    }
    const importId = newId();
    const recorded = await imports.queue({ ...statement, importId, correlationId: `cli-import-${importId}`, requestId: `cli-import-${importId}`, now }, false);
    out.log(`Import ${importId}: ${recorded.totalRows} rows of ${format.toUpperCase()} into ${account.name}.`);
    const reporter = new ProgressReporter(progress);
    const started = Date.now();
    let rowsDone = 0;
    const shown = (phase: RebuildProgress['phase']): RebuildProgress => ({
      projection: '',
      shown: { title: `import ${importId}`, unit: 'rows', rateUnit: 'rows/s' },
      done: rowsDone,
      total: recorded.totalRows,
      doneAtStart: 0,
      elapsedMs: Date.now() - started,
      phase,
    });
    await runStatementImport(dependencies, account.user_id, importId, (counts) => {
      rowsDone = counts.rowsDone;
      reporter.update(shown('replaying'));
    });
    reporter.finish(shown('done'));
    const done = (await importOf(db, account.user_id, importId))!;
    report(out, done, `Import ${importId} ${done.status}`);
    return done.status === 'completed' && done.failed === 0 ? 0 : 1;
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    for (const issue of error.issues) out.error(`${issue.path.join(' ')}: ${issue.message}`);
    return 1;
  }
}

function formatOf(named: string | undefined, path: string): StatementFormat | null {
  const format = (named ?? extname(path).slice(1)).toLowerCase();
  if (format === 'csv') return 'csv';
  if (format === 'ofx' || format === 'qfx') return 'ofx';
  return null;
}

function report(out: Output, counts: { totalRows: number; imported: number; duplicates: number; failed: number; failedRows: readonly { row: number; message: string }[] }, title: string): void {
  out.log(`${title}: ${counts.totalRows} rows, ${counts.imported} imported, ${counts.duplicates} duplicates, ${counts.failed} failed.`);
  for (const failed of counts.failedRows) out.log(`  row ${failed.row}: ${failed.message}`);
  if (counts.failed > counts.failedRows.length) out.log(`  … and ${counts.failed - counts.failedRows.length} more failed rows.`);
}
