import { type Kysely, sql } from 'kysely';

/**
 * One row per projection rebuild under way (docs/decisions/0019): the shadow schema it replays
 * into and how far it got, committed with each of its batches, so a rebuild that dies resumes
 * there. The swap that makes the shadow live deletes the row in the same transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE projection_rebuilds (
      name text NOT NULL,
      version integer NOT NULL,
      shadow_schema text NOT NULL,
      position_commit numeric(20, 0) NOT NULL DEFAULT 0,
      position_prepare numeric(20, 0) NOT NULL DEFAULT 0,
      events_applied bigint NOT NULL DEFAULT 0,
      started_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (name, version)
    )`.execute(db);
}
