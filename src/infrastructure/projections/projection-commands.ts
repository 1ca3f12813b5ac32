import type { Kysely } from 'kysely';
import { comparePositions, formatPosition, type GlobalPosition, parsePosition } from '../../core/events.js';
import { pendingMigrations } from '../database/migrate.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { listParkedEvents, positionOf, retryParkedEvents, skipParkedEvent } from './parked-events.js';
import type { ProjectionDefinition } from './projection.js';
import { readDaemonLeader, readProjectionVersions } from './projection-status.js';

/** The `ledgerline projections …` commands, apart from argument parsing; each returns its exit code. */

export interface CommandOutput {
  log(line: string): void;
  error(line: string): void;
}

/** Commands that only read, or only touch parked events, never migrate: an old schema is the operator's call. */
export async function refuseUnmigrated(db: Kysely<Database>, out: CommandOutput): Promise<boolean> {
  const pending = await pendingMigrations(db);
  if (pending.length === 0) return false;
  out.error(`The database is not migrated to this release (pending: ${pending.join(', ')}). Run \`ledgerline migrate\` first; this command changes nothing.`);
  return true;
}

/**
 * One row per projection version. Its lag is worked out from the positions, not counted: no event
 * is read, so the answer takes the same few milliseconds at any size of log. `~N` is an estimate
 * (PostgreSQL: the difference of the identities, which a rolled-back append leaves a gap in);
 * 0 is exact (at the head); `-` where the store cannot tell (EventStoreDB).
 */
export async function showProjectionStatus(
  db: Kysely<Database>,
  store: Pick<EventStore, 'headPosition' | 'approximateEventsBetween'>,
  projections: readonly ProjectionDefinition[],
  out: CommandOutput,
): Promise<number> {
  const head = await store.headPosition();
  const versions = await readProjectionVersions(db);
  const leader = await readDaemonLeader(db);
  const ours = (name: string, version: number) => projections.some((projection) => projection.name === name && projection.version === version);
  out.log(`head ${formatPosition(head)}`);
  out.log(leader ? `projection daemon: leading in ${leader.holder}` : 'projection daemon: NO INSTANCE IS APPLYING THE PROJECTIONS (is the service running?)');
  out.log(['projection', 'version', 'state', 'position', 'applied', 'lag', 'parked', 'updated', 'release'].join('\t'));
  for (const row of versions) {
    const behind = row.state !== 'superseded' && comparePositions(row.position, head) < 0;
    const lag = behind ? lagText(await store.approximateEventsBetween(row.position, head)) : '0';
    const state = [row.state, ...(behind && row.stale && row.state === 'live' ? ['LAGGING'] : []), ...(row.rebuild ? [`rebuilding (${row.rebuild.eventsApplied.toLocaleString('en')} applied since ${row.rebuild.startedAt.toISOString()})`] : [])].join(', ');
    out.log(
      [
        row.name,
        row.version,
        state,
        formatPosition(row.position),
        row.eventsApplied,
        lag,
        row.parked,
        row.updatedAt.toISOString(),
        ours(row.name, row.version) ? 'this release' : 'other release',
      ].join('\t'),
    );
  }
  for (const projection of projections) {
    if (!versions.some((row) => row.name === projection.name && row.version === projection.version)) {
      out.log(`${projection.name}\t${projection.version}\tnot created: run \`ledgerline migrate\` (or start the service) to build it`);
    }
  }
  return 0;
}

function lagText(events: number | null): string {
  return events === null ? '-' : `~${events}`;
}

export async function showParkedEvents(db: Kysely<Database>, out: CommandOutput, options: { all?: boolean } = {}): Promise<number> {
  const parked = await listParkedEvents(db, { status: options.all ? 'all' : 'parked' });
  if (parked.length === 0) {
    out.log(options.all ? 'No events have been parked.' : 'No parked events.');
    return 0;
  }
  const columns = ['projection', 'version', 'position', 'stream', 'type', 'request', 'attempts', 'first failed', 'last failed', 'error'];
  if (options.all) columns.push('status', 'resolved');
  out.log(columns.join('\t'));
  for (const row of parked) {
    const fields: unknown[] = [
      row.projection,
      row.version,
      formatPosition(positionOf(row)),
      row.stream_id,
      row.event_type,
      row.request_id ?? '-',
      row.attempts,
      row.first_failed_at.toISOString(),
      row.last_failed_at.toISOString(),
      row.error.replace(/\s+/g, ' '),
    ];
    if (options.all) fields.push(row.status, row.resolved_at ? `${row.resolved_by ?? '?'} at ${row.resolved_at.toISOString()}` : '-');
    out.log(fields.join('\t'));
  }
  return 0;
}

export async function retryParked(
  db: Kysely<Database>,
  store: Pick<EventStore, 'readStream'>,
  projections: readonly ProjectionDefinition[],
  args: { projection?: string; position?: string; by: string },
  out: CommandOutput,
): Promise<number> {
  const projection = findProjection(projections, args.projection, out);
  const position = args.position === undefined ? undefined : readPosition(args.position, out);
  if (!projection || position === null) return 2;
  const outcomes = await retryParkedEvents(db, store, projection, { position, by: args.by });
  if (outcomes.length === 0) {
    out.log(`No parked events of ${projection.name} version ${projection.version}${position ? ` at ${formatPosition(position)}` : ''}.`);
    return position ? 1 : 0;
  }
  for (const { parked, result, error } of outcomes) {
    const what = `${formatPosition(positionOf(parked))} ${parked.event_type} in ${parked.stream_id}`;
    if (result === 'retried') out.log(`retried ${what} (by ${args.by})`);
    else if (result === 'gone') out.log(`already resolved meanwhile: ${what}`);
    else out.error(`still parked ${what}: ${error}`);
  }
  return outcomes.some((outcome) => outcome.result === 'failed') ? 1 : 0;
}

export async function skipParked(
  db: Kysely<Database>,
  projections: readonly ProjectionDefinition[],
  args: { projection?: string; position?: string; by: string },
  out: CommandOutput,
): Promise<number> {
  const projection = findProjection(projections, args.projection, out);
  if (args.position === undefined) {
    out.error('--position commit/prepare is required: `ledgerline projections parked` lists them.');
    return 2;
  }
  const position = readPosition(args.position, out);
  if (!projection || position === null) return 2;
  const outcome = await skipParkedEvent(db, projection, position, args.by);
  const where = `${projection.name} version ${projection.version} at ${formatPosition(position)}`;
  switch (outcome.result) {
    case 'skipped':
      out.log(`skipped ${where} (${outcome.parked.event_type} in ${outcome.parked.stream_id}) by ${args.by} at ${outcome.parked.resolved_at?.toISOString()}`);
      return 0;
    case 'already':
      out.error(`The event of ${where} is already ${outcome.parked.status} (by ${outcome.parked.resolved_by ?? '?'} at ${outcome.parked.resolved_at?.toISOString() ?? '?'}).`);
      return 1;
    case 'not-found':
      out.error(`No parked event of ${where}: \`ledgerline projections parked\` lists them.`);
      return 1;
  }
}

function findProjection(projections: readonly ProjectionDefinition[], name: string | undefined, out: CommandOutput): ProjectionDefinition | null {
  const found = projections.find((projection) => projection.name === name);
  if (!found) out.error(`${name ? `Unknown projection "${name}"` : 'Name a projection'}; this release has: ${projections.map((projection) => projection.name).join(', ')}.`);
  return found ?? null;
}

function readPosition(text: string, out: CommandOutput): GlobalPosition | null {
  try {
    return parsePosition(text.trim());
  } catch {
    out.error(`--position must be commit/prepare as \`ledgerline projections parked\` prints it, e.g. 1234/5678 (got "${text}").`);
    return null;
  }
}
