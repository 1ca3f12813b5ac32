import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { PROJECTIONS } from '../../../projections/index.js';
import { START_POSITION } from '../../../src/core/events.js';
import { type ProjectionDefinition, projectionSchema } from '../../../src/infrastructure/projections/projection.js';
import { type TableVerification, verifyProjection } from '../../../src/infrastructure/projections/projection-verify.js';
import { createReplaySchema, dropReplaySchema, replayInto } from '../../../src/infrastructure/projections/replay-schema.js';
import { checkpoints, type ServiceDatabase } from './read-models.js';

export interface ReadModelCheck {
  readonly projection: string;
  /** The live tables equal a fresh replay of the event store (checksums, table by table). */
  readonly agree: boolean;
  readonly rows: number;
  /** The checkpoint's count of events applied equals the store's count of the projection's event types. */
  readonly appliedOnce: boolean;
  readonly applied: number;
  readonly stored: number;
  /** The tables whose live and replayed checksums differ, with both row counts. */
  readonly differing: readonly string[];
}

/** Every read model against a fresh rebuild, and its applied count against the store: each event applied exactly once. */
export async function checkReadModels(database: ServiceDatabase): Promise<ReadModelCheck[]> {
  const reached = await checkpoints(database.db);
  const checks: ReadModelCheck[] = [];
  for (const projection of PROJECTIONS) {
    const verified = await verifyProjection(database.db, database.store, projection);
    const stored = await sql<{ count: number }>`SELECT count(*)::int AS count FROM events WHERE type = ANY(${[...projection.eventTypes]}::text[])`.execute(database.db);
    const applied = reached.get(projection.name)?.applied ?? -1;
    checks.push({
      projection: projection.name,
      agree: verified.agree,
      rows: verified.tables.reduce((sum, table) => sum + table.liveRows, 0),
      appliedOnce: applied === stored.rows[0].count,
      applied,
      stored: stored.rows[0].count,
      differing: await describeDifferences(database, projection, verified.tables),
    });
  }
  return checks;
}

async function describeDifferences(database: ServiceDatabase, projection: ProjectionDefinition, tables: readonly TableVerification[]): Promise<string[]> {
  const lines: string[] = [];
  for (const table of tables.filter((candidate) => !candidate.agree)) {
    lines.push(`${table.table}: live ${table.liveRows} rows, replay ${table.replayRows}`);
    lines.push(...(await rowsThatDiffer(database, projection, table.table)).map((row) => `  ${row}`));
  }
  return lines;
}

/** One line per read model for the summary. */
export function readModelLines(checks: readonly ReadModelCheck[]): string[] {
  return checks.flatMap((check) => [
    `    ${check.projection.padEnd(20)} rows ${String(check.rows).padStart(6)}  live = rebuild: ${check.agree ? 'yes' : 'NO'}  applied ${check.applied} of ${check.stored} stored events${check.appliedOnce ? '' : '  MISMATCH'}`,
    ...check.differing.map((table) => `      differs: ${table}`),
  ]);
}

/**
 * For a read model that disagrees with its rebuild: up to `limit` rows of `table` found only in
 * the live table and only in a fresh replay (replayed again here, at the live checkpoint).
 */
export async function rowsThatDiffer(database: ServiceDatabase, projection: ProjectionDefinition, table: string, limit = 3): Promise<string[]> {
  const scratch = `chaos_diff_${randomBytes(3).toString('hex')}`;
  await createReplaySchema(database.db, projection, scratch);
  try {
    const upTo = (await checkpoints(database.db)).get(projection.name)?.position;
    await replayInto(database.db, database.store, projection, scratch, { position: START_POSITION, applied: 0 }, { upTo });
    const live = sql.id(projectionSchema(projection), table);
    const replay = sql.id(scratch, table);
    const only = async (from: typeof live, without: typeof live) =>
      (await sql<{ row: string }>`SELECT to_jsonb(t)::text AS row FROM (SELECT * FROM ${from} EXCEPT SELECT * FROM ${without}) t LIMIT ${limit}`.execute(database.db)).rows.map((row) => row.row);
    return [...(await only(live, replay)).map((row) => `only live:   ${row}`), ...(await only(replay, live)).map((row) => `only replay: ${row}`)];
  } finally {
    await dropReplaySchema(database.db, scratch);
  }
}
