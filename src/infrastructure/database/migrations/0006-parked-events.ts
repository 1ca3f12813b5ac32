import { type Kysely, sql } from 'kysely';

/**
 * Events a projection version could not apply and moved past (docs/decisions/0009). The row is
 * written in the same transaction as the checkpoint move past the event, so an event is either
 * applied, or parked here, never silently lost. Operators retry or skip it; the row stays as the
 * record of what happened (`status`, `resolved_at`, `resolved_by`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE parked_events (
      projection text NOT NULL,
      version integer NOT NULL,
      position_commit numeric(20, 0) NOT NULL,
      position_prepare numeric(20, 0) NOT NULL,
      event_id text NOT NULL,
      stream_id text NOT NULL,
      event_type text NOT NULL,
      user_id text,
      request_id text,
      correlation_id text,
      error text NOT NULL,
      attempts integer NOT NULL,
      first_failed_at timestamptz NOT NULL,
      last_failed_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'parked' CHECK (status IN ('parked', 'retried', 'skipped')),
      resolved_at timestamptz,
      resolved_by text,
      PRIMARY KEY (projection, version, position_commit, position_prepare)
    )`.execute(db);
  // /health and read-your-writes count and read only the open ones.
  await sql`CREATE INDEX parked_events_open ON parked_events (projection, version) WHERE status = 'parked'`.execute(db);
}
