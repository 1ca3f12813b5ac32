import { type Kysely, sql } from 'kysely';

/**
 * Browser sign-in: who a provider's subject is, sign-ins in flight, and sessions. Like API keys
 * (docs/decisions/0004) these are state tables, and no secret is kept in clear: a sign-in is found
 * by the SHA-256 of its `state`, its PKCE verifier is sealed with a key derived from that state,
 * and a session by the SHA-256 of its cookie.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A provider may not disclose an email address; the subject identifies the person.
  await sql`ALTER TABLE users ALTER COLUMN email DROP NOT NULL`.execute(db);
  await sql`
    CREATE TABLE provider_identities (
      provider text NOT NULL,
      subject text NOT NULL,
      user_id uuid NOT NULL REFERENCES users (id),
      email text,
      email_verified boolean NOT NULL DEFAULT false,
      name text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (provider, subject)
    )`.execute(db);
  await sql`CREATE INDEX provider_identities_user ON provider_identities (user_id)`.execute(db);
  await sql`
    CREATE TABLE sign_in_flows (
      state_hash bytea PRIMARY KEY,
      provider text NOT NULL,
      callback_url text NOT NULL,
      sealed_verifier bytea NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX sign_in_flows_expiry ON sign_in_flows (expires_at)`.execute(db);
  await sql`
    CREATE TABLE sessions (
      id_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      created_at timestamptz NOT NULL,
      refreshed_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX sessions_user ON sessions (user_id)`.execute(db);
  await sql`CREATE INDEX sessions_expiry ON sessions (expires_at)`.execute(db);
}
