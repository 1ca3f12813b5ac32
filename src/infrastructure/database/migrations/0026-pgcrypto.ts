import { type Kysely, sql } from 'kysely';

/**
 * `digest` (SHA-1) for the categories read model's `system_category_id` and `system_group_id`: a
 * system category's id is a version-5 UUID of (user, systemKey), computed when read (decision 0034).
 * pgcrypto is a trusted extension: the database's owner may create it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public`.execute(db);
}
