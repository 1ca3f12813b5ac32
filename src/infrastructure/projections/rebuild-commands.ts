import type { Kysely } from 'kysely';
import { formatPosition } from '../../core/events.js';
import type { DatabaseConnection } from '../database/database.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import type { ProjectionDefinition } from './projection.js';
import { RebuildRefusedError, rebuildProjection } from './projection-rebuild.js';
import { type ProjectionVerification, verifyProjection } from './projection-verify.js';
import { formatDuration, ProgressReporter, type ProgressStream } from './rebuild-progress.js';

/** `ledgerline projections rebuild` and `ledgerline audit verify`, apart from argument parsing; each returns its exit code. */

export interface CommandOutput {
  log(line: string): void;
  error(line: string): void;
}

/** The projections named (every one with `all`), or an error naming the unknown ones and what exists. */
export function chooseProjections(projections: readonly ProjectionDefinition[], names: readonly string[], all: boolean): ProjectionDefinition[] | string {
  if (all && names.length > 0) return 'give projection names or --all, not both';
  if (all) return projections.filter((projection) => projection.kind !== 'reaction');
  if (names.length === 0) return 'name a projection, or --all';
  const unknown = names.filter((name) => !projections.some((projection) => projection.name === name));
  if (unknown.length > 0) return `unknown projection${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; known: ${projections.map((projection) => projection.name).join(', ')}`;
  return names.map((name) => projections.find((projection) => projection.name === name) as ProjectionDefinition);
}

export async function rebuildCommand(
  database: Pick<DatabaseConnection, 'db' | 'url'>,
  store: EventStore,
  projections: readonly ProjectionDefinition[],
  options: { names: readonly string[]; all: boolean; batchSize?: number },
  out: CommandOutput,
  progress: ProgressStream,
): Promise<number> {
  const chosen = chooseProjections(projections, options.names, options.all);
  if (typeof chosen === 'string') {
    out.error(`projections rebuild: ${chosen}`);
    return 1;
  }
  const reporter = new ProgressReporter(progress);
  let failed = 0;
  for (const projection of chosen) {
    try {
      const outcome = await rebuildProjection(database, store, projection, {
        batchSize: options.batchSize,
        onProgress: (at) => (at.phase === 'done' ? reporter.finish(at) : reporter.update(at)),
      });
      const speed = outcome.elapsedMs > 0 ? Math.round((outcome.events * 1000) / outcome.elapsedMs) : 0;
      out.log(
        `${projection.name} v${projection.version}: rebuilt${outcome.resumed ? ' (resumed)' : ''} at ${formatPosition(outcome.position)}, ${outcome.applied.toLocaleString('en')} events applied, ` +
          `${outcome.events.toLocaleString('en')} read in ${formatDuration(outcome.elapsedMs / 1000)} (${speed.toLocaleString('en')} ev/s), ${outcome.parked} parked`,
      );
    } catch (error) {
      failed += 1;
      const message = error instanceof Error ? error.message : String(error);
      out.error(`${projection.name} v${projection.version}: ${error instanceof RebuildRefusedError ? '' : 'rebuild failed (run the command again to resume): '}${message}`);
    }
  }
  return failed === 0 ? 0 : 1;
}


export async function auditVerifyCommand(
  db: Kysely<Database>,
  store: EventStore,
  projections: readonly ProjectionDefinition[],
  options: { projection?: string; json?: boolean },
  out: CommandOutput,
): Promise<number> {
  const chosen = chooseProjections(projections, options.projection ? [options.projection] : [], !options.projection);
  if (typeof chosen === 'string') {
    out.error(`audit verify: ${chosen}`);
    return 1;
  }
  const results: ProjectionVerification[] = [];
  for (const projection of chosen) results.push(await verifyProjection(db, store, projection));
  const agree = results.every((result) => result.agree);
  if (options.json) {
    out.log(JSON.stringify({ agree, projections: results.map((result) => ({ ...result, position: formatPosition(result.position) })) }, null, 2));
  } else {
    for (const line of verificationLines(results)) out.log(line);
  }
  return agree ? 0 : 1;
}

/** One line per table, then the verdict. */
export function verificationLines(results: readonly ProjectionVerification[]): string[] {
  const lines = [['projection', 'version', 'table', 'rows', 'replayed', 'checksum', 'replay checksum', 'verdict'].join('\t')];
  for (const result of results) {
    for (const table of result.tables) {
      lines.push([result.projection, result.version, table.table, table.liveRows, table.replayRows, table.liveChecksum, table.replayChecksum, table.agree ? 'agrees' : 'DISAGREES'].join('\t'));
    }
  }
  const disagreeing = results.filter((result) => !result.agree).map((result) => result.projection);
  lines.push(
    disagreeing.length === 0
      ? `every read model agrees with a replay of the event store (${results.length} projection${results.length === 1 ? '' : 's'})`
      : `DISAGREES: ${disagreeing.join(', ')} differ from a replay of the event store; \`ledgerline projections rebuild <name>\` rebuilds one from the events`,
  );
  return lines;
}
