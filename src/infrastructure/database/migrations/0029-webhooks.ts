import { type Kysely, sql } from 'kysely';

/**
 * Outbound webhooks (decision 0039). Endpoints are a user's configuration, not ledger data: a
 * plain table, bounded like every string an outsider can send. Deliveries are the durable queue:
 * the `webhook-deliveries` reaction inserts them in the transaction that moves its checkpoint, and
 * every instance's sender claims the head pending delivery of an endpoint for a lease
 * (`claimed_until`), so a killed sender's claim lapses and the delivery is sent again, same id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      url text NOT NULL CHECK (length(url) <= 2048),
      description text CHECK (length(description) <= 500),
      event_types text[] NOT NULL DEFAULT '{}' CHECK (cardinality(event_types) <= 9),
      sealed_secret bytea NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      disabled_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_of_user ON webhook_endpoints (user_id, created_at, id)`.execute(db);
  await sql`
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      seq bigserial NOT NULL,
      user_id uuid NOT NULL,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id uuid NOT NULL,
      event_type text NOT NULL,
      occurred_at timestamptz NOT NULL,
      data jsonb,
      render_from jsonb,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_error text,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      claimed_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending'`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, seq DESC)`.execute(db);
}
