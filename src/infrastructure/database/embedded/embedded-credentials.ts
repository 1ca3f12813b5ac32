import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { keptSecretFile } from '../../secrets/data-dir-key.js';

/** The superuser initdb made; the service never connects as it once its role exists. */
export const SUPERUSER = 'postgres';
/** The service's role: owns its database, and nothing more. */
export const SERVICE_ROLE = 'ledgerline';
export const DATABASE = 'ledgerline';
/** Kept in DATA_DIR, in the format of libpq's password file: `PGPASSFILE=<it> psql` reads it as it is. */
export const CREDENTIALS_FILE = 'postgres.pgpass';

export interface EmbeddedCredentials {
  readonly file: string;
  readonly superuserPassword: string;
  readonly servicePassword: string;
}

/** The passwords in `DATA_DIR/postgres.pgpass` (mode 0600), generated on first use. */
export async function keptCredentials(dataDir: string): Promise<EmbeddedCredentials> {
  const text = await keptSecretFile(dataDir, CREDENTIALS_FILE, () => `${line(SERVICE_ROLE, password())}\n${line(SUPERUSER, password())}\n`);
  const file = path.join(dataDir, CREDENTIALS_FILE);
  const passwords = new Map(
    text
      .split('\n')
      .map((entry) => entry.split(':'))
      .filter((fields) => fields.length === 5)
      .map(([, , , user, secret]) => [user, secret] as const),
  );
  const superuserPassword = passwords.get(SUPERUSER);
  const servicePassword = passwords.get(SERVICE_ROLE);
  if (!superuserPassword || !servicePassword) throw new Error(`${file} does not name the passwords of ${SUPERUSER} and ${SERVICE_ROLE}; it was not written by Ledgerline`);
  return { file, superuserPassword, servicePassword };
}

function line(user: string, secret: string): string {
  return `127.0.0.1:*:*:${user}:${secret}`;
}

/** 32 characters of base64url: nothing the password file or a connection URL would need escaped. */
function password(): string {
  return randomBytes(24).toString('base64url');
}
