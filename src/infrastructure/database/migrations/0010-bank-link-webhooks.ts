import { type Kysely, sql } from 'kysely';

/**
 * The provider webhooks the service has received, by the provider's id of each: a delivery retried
 * or replayed finds its id here and changes nothing a second time. Written after the webhook's
 * effect (docs/decisions/0013), so a crash in between leaves a webhook that is applied again on
 * its next delivery — every effect is idempotent by the item's state — rather than one recorded
 * and never applied. `outcome` says what the service did with it, for operators.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS bank_link_webhooks_received (
      provider text NOT NULL,
      webhook_id text NOT NULL,
      code text,
      link_item_id text,
      outcome text NOT NULL,
      received_at timestamptz NOT NULL,
      PRIMARY KEY (provider, webhook_id)
    )`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS bank_link_webhooks_received_at ON bank_link_webhooks_received (received_at)`.execute(db);
}
