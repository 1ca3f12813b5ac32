import { type Kysely, sql } from 'kysely';

/**
 * A lease names the connection its holder renews it through (its backend pid and unique
 * application name), so that a holder whose connection is gone — a crashed process — is taken
 * over at once instead of after the expiry (decision 0032). Rows of an older release have neither
 * and keep the expiry alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE projection_leases ADD COLUMN holder_pid integer, ADD COLUMN holder_application text`.execute(db);
}
