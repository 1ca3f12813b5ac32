import { type Kysely, sql } from 'kysely';

/**
 * Each invalidation (migration 0015) names the transaction that made it, so that every instance
 * can acknowledge exactly that one and a revocation can answer once all of them have
 * (docs/decisions/0023): `key <api key id> <user id> <xid>`, `user <user id> <xid>`, `all <xid>`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION notify_api_key_invalidation() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('ledgerline_api_key_invalidations', 'all ' || pg_current_xact_id());
      ELSIF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('ledgerline_api_key_invalidations', 'user ' || OLD.id || ' ' || pg_current_xact_id());
      ELSE
        PERFORM pg_notify('ledgerline_api_key_invalidations', 'key ' || OLD.id || ' ' || OLD.user_id || ' ' || pg_current_xact_id());
      END IF;
      RETURN NULL;
    END
    $$`.execute(db);
}
