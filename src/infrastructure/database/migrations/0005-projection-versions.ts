import { type Kysely, sql } from 'kysely';

/**
 * One row per version of each projection: a version's tables live in a schema of their own
 * (`projection_<name>_v<version>`), so a new release builds its version beside the one an older
 * release still serves, and nothing is dropped in place. `caught_up_at` is set the first time a
 * version reaches the head of the feed; from then older versions are `superseded_at` and their
 * runners stand down. The old `projection_checkpoints` table (and the read-model tables in
 * `public` it described) stays for a release that still uses them; this release replays into its
 * own schemas.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE projection_versions (
      name text NOT NULL,
      version integer NOT NULL,
      position_commit numeric(20, 0) NOT NULL DEFAULT 0,
      position_prepare numeric(20, 0) NOT NULL DEFAULT 0,
      events_applied bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      caught_up_at timestamptz,
      superseded_at timestamptz,
      PRIMARY KEY (name, version)
    )`.execute(db);
}
