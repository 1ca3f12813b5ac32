import { type Kysely, sql } from 'kysely';

/**
 * A sign-in is bound to the browser that began it: the SHA-256 of a nonce that only that
 * browser holds, in an httpOnly cookie. Nullable, so that flows begun before this migration
 * (and by an older release still running beside a newer one) can be stored; the newer release
 * refuses to finish a flow without a binding, so such a flow simply has to be started again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sign_in_flows ADD COLUMN IF NOT EXISTS browser_binding_hash bytea`.execute(db);
}
