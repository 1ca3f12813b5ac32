import { type Kysely, sql } from 'kysely';

/**
 * Who applies each projection, and until when: a lease its holder renews by heartbeat. A holder
 * that hangs stops renewing, its lease expires, and a standby takes over (decision 0005).
 * Expiry is judged by the database's clock alone, so the instances' clocks need not agree.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE projection_leases (
      name text PRIMARY KEY,
      holder text NOT NULL,
      acquired_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`.execute(db);
}
