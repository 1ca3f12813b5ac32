import { type Kysely, sql } from 'kysely';
import type { GlobalPosition } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import { CHECKPOINT_CHANNEL } from './checkpoint-watch.js';
import type { ProjectionDefinition } from './projection.js';

/** A runner's reads and writes of its own `projection_versions` row (decisions 0005, 0009). */

type VersionOf = Pick<ProjectionDefinition, 'name' | 'version'>;

export class LeaseLostError extends Error {
  constructor(name: string) {
    super(`Projection ${name}: another runner moved the checkpoint; standing down`);
  }
}

/** A newer version of the same projection has caught up: this release stops projecting its own for good. */
export class ProjectionSupersededError extends Error {
  constructor(
    readonly projection: string,
    readonly version: number,
    readonly newerVersion: number | null,
  ) {
    super(`projection ${projection} version ${version} is superseded by version ${newerVersion ?? 'newer'}; this release stops projecting it`);
  }
}

export interface VersionCheckpoint {
  readonly position: GlobalPosition;
  readonly caughtUp: boolean;
}

/** The version's checkpoint; throws when a newer version has caught up (or marked this one superseded). */
export async function readVersionCheckpoint(db: Kysely<Database>, projection: VersionOf): Promise<VersionCheckpoint> {
  const row = await versionState(db, projection);
  if (!row) throw new Error(`Projection ${projection.name} version ${projection.version} has no checkpoint row: run migrate first`);
  if (row.superseded_at || row.newer !== null) throw new ProjectionSupersededError(projection.name, projection.version, row.newer);
  return { position: { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) }, caughtUp: row.caught_up_at !== null };
}

/**
 * Compare-and-set: if another runner moved the checkpoint, or a newer version superseded this
 * one, the batch must not count. The NOTIFY (delivered on commit) tells every instance's waiters.
 */
export async function moveVersionCheckpoint(db: Kysely<Database>, projection: VersionOf, from: GlobalPosition, to: GlobalPosition, applied: number): Promise<void> {
  const { name, version } = projection;
  const moved = await sql<{ moved: number }>`
    UPDATE projection_versions
       SET position_commit = ${to.commit.toString()}, position_prepare = ${to.prepare.toString()},
           events_applied = events_applied + ${applied}, updated_at = now()
     WHERE name = ${name} AND version = ${version} AND superseded_at IS NULL
       AND position_commit = ${from.commit.toString()} AND position_prepare = ${from.prepare.toString()}
    RETURNING 1 AS moved`.execute(db);
  if (moved.rows.length === 1) return;
  const row = await versionState(db, projection);
  if (row && (row.superseded_at || row.newer !== null)) throw new ProjectionSupersededError(name, version, row.newer);
  throw new LeaseLostError(name);
}

/**
 * Tells the other instances' checkpoint watches that a projection moved, after the transaction
 * that moved it: PostgreSQL serialises the commits of notifying transactions (a global lock held
 * through the commit's flush), which queued every runner's checkpoint move behind the others'.
 * One NOTIFY in flight per projection; moves meanwhile collapse into the newest. A notification
 * lost to a crash or an error costs a waiter at most one re-read of the checkpoints.
 */
export class CheckpointAnnouncer {
  private latest: GlobalPosition | null = null;
  private sending = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly projection: VersionOf,
  ) {}

  announce(position: GlobalPosition): void {
    this.latest = position;
    if (!this.sending) void this.send();
  }

  private async send(): Promise<void> {
    this.sending = true;
    try {
      for (let next = this.latest; next !== null; next = this.latest) {
        this.latest = null;
        await sql`SELECT pg_notify(${CHECKPOINT_CHANNEL}, ${`${this.projection.name} ${this.projection.version} ${next.commit} ${next.prepare}`})`.execute(this.db);
      }
    } catch {
      this.latest = null;
    } finally {
      this.sending = false;
    }
  }
}

/** First time at the head of the feed: this version is live, and every older one superseded. */
export async function markCaughtUp(db: Kysely<Database>, projection: VersionOf): Promise<void> {
  const { name, version } = projection;
  await sql`UPDATE projection_versions SET caught_up_at = now() WHERE name = ${name} AND version = ${version} AND caught_up_at IS NULL`.execute(db);
  await sql`UPDATE projection_versions SET superseded_at = now() WHERE name = ${name} AND version < ${version} AND superseded_at IS NULL`.execute(db);
}

async function versionState(db: Kysely<Database>, projection: VersionOf) {
  const result = await sql<{ position_commit: string; position_prepare: string; caught_up_at: Date | null; superseded_at: Date | null; newer: number | null }>`
    SELECT position_commit, position_prepare, caught_up_at, superseded_at,
           (SELECT max(newer.version) FROM projection_versions newer
             WHERE newer.name = v.name AND newer.version > v.version AND newer.caught_up_at IS NOT NULL) AS newer
      FROM projection_versions v
     WHERE name = ${projection.name} AND version = ${projection.version}`.execute(db);
  return result.rows[0];
}
