import { type Kysely, sql } from 'kysely';

/** Credentials are state, not events: see docs/decisions/0004-credentials-are-not-events.md. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      name text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX users_email ON users (lower(email))`.execute(db);
  await sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      name text NOT NULL,
      prefix text NOT NULL,
      key_hash bytea NOT NULL UNIQUE,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX api_keys_user ON api_keys (user_id)`.execute(db);
}
