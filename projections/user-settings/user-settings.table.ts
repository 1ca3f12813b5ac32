import { type Kysely, sql } from 'kysely';

/** One row per user who has set anything; a user without one has the defaults (UTC). */
export interface UserSettingsTable {
  user_id: string;
  time_zone: string;
  updated_at: Date;
  /** The revision of the user's settings stream the row reflects. */
  revision: number;
}

export async function createUserSettingsTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE user_settings (
      user_id uuid PRIMARY KEY,
      time_zone text NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    )`.execute(db);
}
