import { type Kysely, sql } from 'kysely';
import { comparePositions, type GlobalPosition } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import type { ProjectionDefinition } from './projection.js';
import { DAEMON_LEASE } from './projection-daemon.js';

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
  /** Its checkpoint has not moved for STALE_AFTER_SECONDS: behind the head, that is a projection no one moves. */
  readonly stale: boolean;
  /** A `projections rebuild` of it under way: where its replay has got to. */
  readonly rebuild: { readonly startedAt: Date; readonly position: GlobalPosition; readonly eventsApplied: number } | null;
}

/** A checkpoint behind the head that has not moved for this long is lagging: nothing is applying it. */
export const STALE_AFTER_SECONDS = 10;

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
    stale: boolean;
    rebuild_started_at: Date | null;
    rebuild_commit: string | null;
    rebuild_prepare: string | null;
    rebuild_applied: string | number | null;
  }>`
    SELECT v.name, v.version, v.position_commit, v.position_prepare, v.events_applied, v.updated_at, v.caught_up_at, v.superseded_at,
           coalesce(p.parked, 0)::int AS parked, v.updated_at < now() - make_interval(secs => ${STALE_AFTER_SECONDS}) AS stale,
           r.started_at AS rebuild_started_at, r.position_commit AS rebuild_commit, r.position_prepare AS rebuild_prepare, r.events_applied AS rebuild_applied
      FROM projection_versions v
      LEFT JOIN (SELECT projection, version, count(*) AS parked FROM parked_events WHERE status = 'parked' GROUP BY projection, version) p
             ON p.projection = v.name AND p.version = v.version
      LEFT JOIN projection_rebuilds r ON r.name = v.name AND r.version = v.version
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
    stale: row.stale,
    rebuild:
      row.rebuild_started_at === null
        ? null
        : { startedAt: row.rebuild_started_at, position: { commit: BigInt(row.rebuild_commit ?? '0'), prepare: BigInt(row.rebuild_prepare ?? '0') }, eventsApplied: Number(row.rebuild_applied ?? 0) },
  }));
}

/** Whether some instance holds the daemon's lease and is alive: its lease unexpired and its connection up. */
export async function readDaemonLeader(db: Kysely<Database>): Promise<{ holder: string } | null> {
  const result = await sql<{ holder: string }>`
    SELECT holder FROM projection_leases l
     WHERE l.name = ${DAEMON_LEASE} AND l.expires_at > now()
       AND (l.holder_pid IS NULL OR EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.holder_pid AND a.application_name = l.holder_application))`.execute(db);
  return result.rows[0] ?? null;
}

export type ProjectionHealth = 'ok' | 'parked' | 'building' | 'superseded' | 'lagging';

export interface ProjectionHealthDetail {
  readonly status: ProjectionHealth;
  readonly parked: number;
  /** A rebuild under way, and where its replay has got to (the live version keeps serving meanwhile). */
  readonly rebuild?: { readonly startedAt: string; readonly eventsApplied: number };
}

/**
 * What /health says about each projection this release runs: the worst of superseded, parked,
 * building, lagging (its checkpoint behind the head and not moved for STALE_AFTER_SECONDS).
 */
export function projectionHealth(
  versions: readonly ProjectionVersionStatus[],
  projections: readonly Pick<ProjectionDefinition, 'name' | 'version'>[],
  head: GlobalPosition | null = null,
): Record<string, ProjectionHealthDetail> {
  const health: Record<string, ProjectionHealthDetail> = {};
  for (const projection of projections) {
    const row = versions.find((candidate) => candidate.name === projection.name && candidate.version === projection.version);
    const parked = row?.parked ?? 0;
    const state = row?.state ?? 'building';
    const lagging = row !== undefined && head !== null && row.stale && comparePositions(row.position, head) < 0;
    const status: ProjectionHealth = state === 'superseded' ? 'superseded' : parked > 0 ? 'parked' : state === 'building' ? 'building' : lagging ? 'lagging' : 'ok';
    health[projection.name] = { status, parked, ...(row?.rebuild ? { rebuild: { startedAt: row.rebuild.startedAt.toISOString(), eventsApplied: row.rebuild.eventsApplied } } : {}) };
  }
  return health;
}
