import type pg from 'pg';
import { PROJECTIONS } from '../../projections/index.js';

/** This release's projections whose checkpoint is short of the last event in the store. */
export async function projectionsBehind(pool: pg.Pool): Promise<string[]> {
  const result = await pool.query<{ name: string }>(
    `SELECT v.name FROM projection_versions v
       JOIN unnest($1::text[], $2::int[]) AS current(name, version) ON current.name = v.name AND current.version = v.version
      WHERE (v.position_commit, v.position_prepare) < (SELECT (transaction_id::text)::numeric, global_position FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1)`,
    [PROJECTIONS.map((projection) => projection.name), PROJECTIONS.map((projection) => projection.version)],
  );
  return result.rows.map((row) => row.name);
}
