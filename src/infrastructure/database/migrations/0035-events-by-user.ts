import { type Kysely, sql } from 'kysely';

/**
 * One user's events in the feed's order, for `GET /v1/export` (decision 0044): without it every
 * export would walk the whole log, so any user could make the server read everyone's events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX events_by_user ON events ((metadata->>'userId'), transaction_id, global_position)`.execute(db);
}
