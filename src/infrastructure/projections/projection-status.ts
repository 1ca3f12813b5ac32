import { type Kysely, sql } from 'kysely';
import type { GlobalPosition } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import type { ProjectionDefinition } from './projection.js';

/** `building`: not yet at the head of the feed once; `live`: it has been; `superseded`: a newer version took over. */
export type VersionState = 'building' | 'live' | 'superseded';

export interface ProjectionVersionStatus {
  readonly name: string;
  readonly version: number;
  readonly state: VersionState;
  readonly position: GlobalPosition;
  readonly eventsApplied: number;
  readonly updatedAt: Date;
  readonly caughtUpAt: Date | null;
  readonly supersededAt: Date | null;
  /** Events parked and not yet retried or skipped. */
  readonly parked: number;
}

/** Every version of every projection with its open parked count, in one query (cheap enough for /health). */
export async function readProjectionVersions(db: Kysely<Database>): Promise<ProjectionVersionStatus[]> {
  const result = await sql<{
    name: string;
    version: number;
    position_commit: string;
    position_prepare: string;
    events_applied: string | number;
    updated_at: Date;
    caught_up_at: Date | null;
    superseded_at: Date | null;
    parked: number;
  }>`
    SELECT v.name, v.version, v.position_commit, v.position_prepare, v.events_applied, v.updated_at, v.caught_up_at, v.superseded_at,
           coalesce(p.parked, 0)::int AS parked
      FROM projection_versions v
      LEFT JOIN (SELECT projection, version, count(*) AS parked FROM parked_events WHERE status = 'parked' GROUP BY projection, version) p
             ON p.projection = v.name AND p.version = v.version
     ORDER BY v.name, v.version`.execute(db);
  return result.rows.map((row) => ({
    name: row.name,
    version: row.version,
    state: row.superseded_at ? 'superseded' : row.caught_up_at ? 'live' : 'building',
    position: { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) },
    eventsApplied: Number(row.events_applied),
    updatedAt: row.updated_at,
    caughtUpAt: row.caught_up_at,
    supersededAt: row.superseded_at,
    parked: row.parked,
  }));
}

export type ProjectionHealth = 'ok' | 'parked' | 'building' | 'superseded';

/** What /health says about each of this release's projections: the worst of superseded, parked, building. */
export function projectionHealth(
  versions: readonly ProjectionVersionStatus[],
  projections: readonly Pick<ProjectionDefinition, 'name' | 'version'>[],
): Record<string, { status: ProjectionHealth; parked: number }> {
  const health: Record<string, { status: ProjectionHealth; parked: number }> = {};
  for (const projection of projections) {
    const row = versions.find((candidate) => candidate.name === projection.name && candidate.version === projection.version);
    const parked = row?.parked ?? 0;
    const state = row?.state ?? 'building';
    const status: ProjectionHealth = state === 'superseded' ? 'superseded' : parked > 0 ? 'parked' : state === 'building' ? 'building' : 'ok';
    health[projection.name] = { status, parked };
  }
  return health;
}
