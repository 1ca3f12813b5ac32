import { type Kysely, sql } from 'kysely';

/**
 * Instances answer API keys from an in-process cache (docs/decisions/0023), so every change that
 * can turn a cached principal stale NOTIFYs them: a key revoked, deleted, re-scoped or moved, and
 * a user's email or name changed or the user deleted — from the service or from an operator's SQL
 * alike. pg_notify inside the trigger is transactional: it is delivered when the change commits,
 * never for a rolled-back one. `last_used_at` and a key's name change nothing a principal carries.
 *
 * Payloads on `ledgerline_api_key_invalidations` (the listener's API_KEY_INVALIDATION_CHANNEL):
 * `key <api key id> <user id>`, `user <user id>`, `all` (a TRUNCATE).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION notify_api_key_invalidation() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('ledgerline_api_key_invalidations', 'all');
      ELSIF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('ledgerline_api_key_invalidations', 'user ' || OLD.id);
      ELSE
        PERFORM pg_notify('ledgerline_api_key_invalidations', 'key ' || OLD.id || ' ' || OLD.user_id);
      END IF;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER api_keys_invalidate_on_update AFTER UPDATE ON api_keys FOR EACH ROW
      WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.scopes IS DISTINCT FROM NEW.scopes OR OLD.key_hash IS DISTINCT FROM NEW.key_hash
            OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.id IS DISTINCT FROM NEW.id)
      EXECUTE FUNCTION notify_api_key_invalidation()`.execute(db);
  await sql`CREATE TRIGGER api_keys_invalidate_on_delete AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_invalidation()`.execute(db);
  await sql`CREATE TRIGGER api_keys_invalidate_on_truncate AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_api_key_invalidation()`.execute(db);
  await sql`
    CREATE TRIGGER users_invalidate_on_update AFTER UPDATE ON users FOR EACH ROW
      WHEN (OLD.email IS DISTINCT FROM NEW.email OR OLD.name IS DISTINCT FROM NEW.name OR OLD.id IS DISTINCT FROM NEW.id)
      EXECUTE FUNCTION notify_api_key_invalidation()`.execute(db);
  await sql`CREATE TRIGGER users_invalidate_on_delete AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION notify_api_key_invalidation()`.execute(db);
  await sql`CREATE TRIGGER users_invalidate_on_truncate AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION notify_api_key_invalidation()`.execute(db);
}
