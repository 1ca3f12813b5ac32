import pg from 'pg';
import { DATABASE, type EmbeddedCredentials, SERVICE_ROLE, SUPERUSER } from './embedded-credentials.js';

/** Serialises the set-up of processes starting together on one DATA_DIR. */
const SETUP_LOCK = 3_002_030;

type Log = (message: string) => void;

/**
 * Makes sure the service role signs in to the database it owns. The usual start signs in as the
 * service role and is done; the first start on a DATA_DIR (or one made before decision 0030) signs
 * in as the superuser and creates what is missing. The service role's password is set last, so a
 * set-up cut short is done again at the next start. Call only once the server is known to be ours.
 */
export async function prepareServiceRole(port: number, credentials: EmbeddedCredentials, log: Log, upgradePassword: string | null): Promise<void> {
  if (await signsIn(port, SERVICE_ROLE, credentials.servicePassword, DATABASE)) return;
  const admin = await superuserClient(port, credentials, 'postgres', log, upgradePassword);
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [SETUP_LOCK]);
    await admin.query(`DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${SERVICE_ROLE}') THEN CREATE ROLE ${SERVICE_ROLE} NOLOGIN; END IF;
      END $$`);
    // Its connections see every session's xid and application name, as the feed and the leases read them (decision 0008, 0032).
    await admin.query(`GRANT pg_read_all_stats TO ${SERVICE_ROLE}`);
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE} OWNER ${SERVICE_ROLE}`);
    else await admin.query(`ALTER DATABASE ${DATABASE} OWNER TO ${SERVICE_ROLE}`);
    await handOverObjects(port, credentials);
    await admin.query(`ALTER ROLE ${SERVICE_ROLE} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${admin.escapeLiteral(credentials.servicePassword)}`);
    log(`the embedded PostgreSQL's service role ${SERVICE_ROLE} is ready`);
  } finally {
    await admin.end();
  }
}

/** What the superuser owns in the service's database (tables, sequences, functions, schemas an older release made) goes to the service role. */
async function handOverObjects(port: number, credentials: EmbeddedCredentials): Promise<void> {
  const client = await superuserClient(port, credentials, DATABASE, () => undefined, null);
  try {
    await client.query(`DO $$ DECLARE item record; BEGIN
      FOR item IN SELECT n.nspname FROM pg_namespace n
          WHERE n.nspowner = '${SUPERUSER}'::regrole AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname NOT IN ('information_schema', 'public') LOOP
        EXECUTE format('ALTER SCHEMA %I OWNER TO ${SERVICE_ROLE}', item.nspname);
      END LOOP;
      FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relowner = '${SUPERUSER}'::regrole AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
            AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
            AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))) LOOP
        EXECUTE format(CASE item.relkind WHEN 'S' THEN 'ALTER SEQUENCE %s OWNER TO ${SERVICE_ROLE}' WHEN 'v' THEN 'ALTER VIEW %s OWNER TO ${SERVICE_ROLE}'
          WHEN 'm' THEN 'ALTER MATERIALIZED VIEW %s OWNER TO ${SERVICE_ROLE}' WHEN 'f' THEN 'ALTER FOREIGN TABLE %s OWNER TO ${SERVICE_ROLE}'
          ELSE 'ALTER TABLE %s OWNER TO ${SERVICE_ROLE}' END, item.name);
      END LOOP;
      FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE p.proowner = '${SUPERUSER}'::regrole AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO ${SERVICE_ROLE}', item.name);
      END LOOP;
      FOR item IN SELECT t.oid::regtype AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
          WHERE t.typowner = '${SUPERUSER}'::regrole AND t.typtype IN ('e', 'd', 'r', 'c') AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
            AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' LOOP
        EXECUTE format('ALTER TYPE %s OWNER TO ${SERVICE_ROLE}', item.name);
      END LOOP;
    END $$`);
  } finally {
    await client.end();
  }
}

/**
 * The superuser, by the password in DATA_DIR. A DATA_DIR an older release made has that release's
 * password instead: given (EMBEDDED_POSTGRES_UPGRADE_PASSWORD), it signs in once and is replaced.
 */
async function superuserClient(port: number, credentials: EmbeddedCredentials, database: string, log: Log, upgradePassword: string | null): Promise<pg.Client> {
  const current = await connect(port, SUPERUSER, credentials.superuserPassword, database);
  if (current instanceof pg.Client) return current;
  const old = upgradePassword === null ? null : await connect(port, SUPERUSER, upgradePassword, database);
  if (!(old instanceof pg.Client)) {
    throw new Error(
      `the embedded PostgreSQL refused its superuser ${SUPERUSER} with the password in ${credentials.file} (${current.message}). ` +
        (upgradePassword === null
          ? 'A DATA_DIR made by a release before decision 0030 is upgraded once by starting with EMBEDDED_POSTGRES_UPGRADE_PASSWORD set to the password that release used (README, "Run it")'
          : 'EMBEDDED_POSTGRES_UPGRADE_PASSWORD was refused too'),
    );
  }
  await old.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${old.escapeLiteral(credentials.superuserPassword)}`);
  log(`the embedded PostgreSQL's superuser no longer has the password of an older release: its password is now in ${credentials.file}`);
  return old;
}

async function signsIn(port: number, user: string, password: string, database: string): Promise<boolean> {
  const client = await connect(port, user, password, database);
  if (!(client instanceof pg.Client)) return false;
  await client.end();
  return true;
}

/** A connected client, or why signing in was refused (wrong password, no such role or database); any other failure throws. */
async function connect(port: number, user: string, password: string, database: string): Promise<pg.Client | Error> {
  const client = new pg.Client({ host: '127.0.0.1', port, user, password, database, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    const code = (error as { code?: string }).code;
    if (code === '28P01' || code === '28000' || code === '3D000') return error as Error;
    throw error;
  }
}
