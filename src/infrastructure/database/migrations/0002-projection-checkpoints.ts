import { type Kysely, sql } from 'kysely';

/** One row per projection: how far it has applied the global feed, and which version built it. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE projection_checkpoints (
      name text PRIMARY KEY,
      version integer NOT NULL,
      position_commit numeric(20, 0) NOT NULL DEFAULT 0,
      position_prepare numeric(20, 0) NOT NULL DEFAULT 0,
      events_applied bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}
