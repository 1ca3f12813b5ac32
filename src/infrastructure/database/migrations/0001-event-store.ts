import { type Kysely, sql } from 'kysely';

/**
 * Append-only event log. `transaction_id` (the appending transaction's xid8) orders the global
 * feed together with `global_position`; see docs/decisions/0001-event-store-ordering.md.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE events (
      global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      event_id uuid NOT NULL UNIQUE,
      stream_id text NOT NULL,
      stream_revision bigint NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      UNIQUE (stream_id, stream_revision)
    )`.execute(db);
  await sql`CREATE INDEX events_global_order ON events (transaction_id, global_position)`.execute(db);
  await sql`
    CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'events are append-only: % refused', TG_OP;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()`.execute(db);
}
