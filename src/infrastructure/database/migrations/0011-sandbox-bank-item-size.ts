import { type Kysely, sql } from 'kysely';

/**
 * How the sandbox provider generates each item beyond its seed, institution and asOf:
 * `transaction_count` (the item's size on its link day; null = the generator's default, two to
 * three everyday purchases a day) and `horizon_days` (the days it lives on after asOf, revealed as
 * the clock moves; null = none, as every item linked before this migration was generated, so their
 * logs, and the cursors the service holds into them, stay as they are). Kept on the public token
 * too, which carries them from the link flow to the exchange.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sandbox_bank_public_tokens', 'sandbox_bank_items']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN IF NOT EXISTS transaction_count integer, ADD COLUMN IF NOT EXISTS horizon_days integer`.execute(db);
  }
}
