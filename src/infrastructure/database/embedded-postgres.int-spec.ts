import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../jobs/private-redis.test-support.js';
import { initialiseCluster, launchPostmaster, runningPostmaster, stopPostmaster } from './embedded/embedded-server.js';
import { EmbeddedPortTakenError, startEmbeddedPostgres } from './embedded-postgres.js';

const OLD_FIXED_PASSWORD = 'ledgerline-embedded';
const quiet = { info: () => undefined, warn: () => undefined };
const dataDirs: string[] = [];

async function freshDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-embedded-int-'));
  dataDirs.push(dataDir);
  return dataDir;
}

afterAll(async () => {
  for (const dataDir of dataDirs) {
    await stopPostmaster(path.join(dataDir, 'postgres'));
    await rm(dataDir, { recursive: true, force: true });
  }
});

async function query<T extends pg.QueryResultRow>(connection: string | pg.ClientConfig, sql: string): Promise<T[]> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function refusesSignIn(config: pg.ClientConfig): Promise<string | undefined> {
  return query(config, 'SELECT 1').then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe('the embedded PostgreSQL', () => {
  it('keeps generated passwords in DATA_DIR (0600) and serves the service as a role that owns its database but is no superuser', async () => {
    const dataDir = await freshDataDir();
    const port = await freePort();
    const embedded = await startEmbeddedPostgres(dataDir, port, quiet);

    const file = path.join(dataDir, 'postgres.pgpass');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(OLD_FIXED_PASSWORD);
    expect(text).toMatch(/^127\.0\.0\.1:\*:\*:ledgerline:[A-Za-z0-9_-]{32}$/m);
    expect(new URL(embedded.url).password).not.toBe(OLD_FIXED_PASSWORD);

    const [role] = await query<{ current_user: string; rolsuper: boolean; owns: boolean }>(
      embedded.url,
      `SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
              (SELECT pg_get_userbyid(datdba) = current_user FROM pg_database WHERE datname = current_database()) AS owns`,
    );
    expect(role).toEqual({ current_user: 'ledgerline', rolsuper: false, owns: true });
    // What the migrations need as the service role: versioned read-model schemas, plpgsql functions.
    await query(embedded.url, 'CREATE SCHEMA projection_probe_v1; CREATE FUNCTION projection_probe_v1.one() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$');
    await expect(query(embedded.url, "COPY (SELECT 1) TO PROGRAM 'true'")).rejects.toMatchObject({ code: '42501' });

    expect(await refusesSignIn({ host: '127.0.0.1', port, user: 'postgres', password: OLD_FIXED_PASSWORD, database: 'postgres' })).toBe('28P01');
    await embedded.stop();
    expect(await runningPostmaster(path.join(dataDir, 'postgres'))).toBeNull();
  }, 60_000);

  it('is created once and shared when two users start together on a new DATA_DIR', async () => {
    const dataDir = await freshDataDir();
    const port = await freePort();
    const [first, second] = await Promise.all([startEmbeddedPostgres(dataDir, port, quiet), startEmbeddedPostgres(dataDir, port, quiet)]);
    expect(first.url).toBe(second.url);
    expect(await query(second.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await first.stop();
    await second.stop();
  }, 60_000);

  it('refuses a port another program listens on, before sending it anything', async () => {
    const received: Buffer[] = [];
    const rogue = net.createServer((socket) => socket.on('data', (chunk: Buffer) => received.push(chunk)));
    await new Promise<void>((resolve) => rogue.listen(0, '127.0.0.1', resolve));
    const { port } = rogue.address() as net.AddressInfo;
    try {
      const dataDir = await freshDataDir();
      const started = startEmbeddedPostgres(dataDir, port, quiet);
      await expect(started).rejects.toThrow(EmbeddedPortTakenError);
      await expect(started).rejects.toThrow(`127.0.0.1:${port} (EMBEDDED_POSTGRES_PORT) is taken by a program that is not the PostgreSQL of ${dataDir}/postgres; nothing was sent to it`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(Buffer.concat(received).length).toBe(0);
    } finally {
      await new Promise((resolve) => rogue.close(resolve));
    }
  }, 30_000);

  it('refuses the embedded server of another DATA_DIR on the port', async () => {
    const port = await freePort();
    const first = await startEmbeddedPostgres(await freshDataDir(), port, quiet);
    try {
      await expect(startEmbeddedPostgres(await freshDataDir(), port, quiet)).rejects.toThrow(EmbeddedPortTakenError);
    } finally {
      await first.stop();
    }
  }, 60_000);

  it('upgrades a DATA_DIR an older release made with the fixed superuser password, given in configuration: new passwords, the service role owns what the superuser made', async () => {
    const dataDir = await freshDataDir();
    const databaseDir = path.join(dataDir, 'postgres');
    const port = await freePort();
    await initialiseCluster(databaseDir, 'postgres', OLD_FIXED_PASSWORD);
    await launchPostmaster(databaseDir, port, path.join(dataDir, 'postgres.log'));
    const old = { host: '127.0.0.1', port, user: 'postgres', password: OLD_FIXED_PASSWORD };
    await query({ ...old, database: 'postgres' }, 'CREATE DATABASE ledgerline');
    await query(
      { ...old, database: 'ledgerline' },
      `CREATE TABLE events (global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, data jsonb);
       CREATE SEQUENCE standalone_counter;
       CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no'; END $$;
       CREATE SCHEMA projection_tags_v1; CREATE TABLE projection_tags_v1.tags (id uuid PRIMARY KEY);
       INSERT INTO events (data) VALUES ('{}')`,
    );
    await stopPostmaster(databaseDir);

    // Without the old password given, the start says how to upgrade and changes nothing.
    await expect(startEmbeddedPostgres(dataDir, port, quiet)).rejects.toThrow(/EMBEDDED_POSTGRES_UPGRADE_PASSWORD/);
    const embedded = await startEmbeddedPostgres(dataDir, port, quiet, { upgradePassword: OLD_FIXED_PASSWORD });
    try {
      const owners = await query<{ owner: string }>(
        embedded.url,
        `SELECT DISTINCT owner FROM (
           SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relname IN ('events', 'events_global_position_seq', 'standalone_counter', 'tags')
           UNION ALL SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'events_refuse_change'
           UNION ALL SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'projection_tags_v1') o`,
      );
      expect(owners).toEqual([{ owner: 'ledgerline' }]);
      await query(embedded.url, "ALTER TABLE events ADD COLUMN probe text; INSERT INTO events (data) VALUES ('{}'); SELECT nextval('standalone_counter')");
      expect(await refusesSignIn({ ...old, database: 'postgres' })).toBe('28P01');
      expect((await readFile(path.join(dataDir, 'postgres.pgpass'), 'utf8')).includes(OLD_FIXED_PASSWORD)).toBe(false);
      await query(embedded.adminUrl, 'SELECT 1');
    } finally {
      await embedded.stop();
    }
    // Once upgraded, a start signs in as the service role at once.
    const again = await startEmbeddedPostgres(dataDir, port, quiet);
    expect(await query<{ n: number }>(again.url, 'SELECT count(*)::int AS n FROM events')).toEqual([{ n: 2 }]);
    await again.stop();
  }, 90_000);
});

describe('keeping the embedded PostgreSQL running', () => {
  it('starts it again when it is stopped, and gives up (for the service to exit) when it cannot', async () => {
    const dataDir = await freshDataDir();
    const databaseDir = path.join(dataDir, 'postgres');
    const port = await freePort();
    const embedded = await startEmbeddedPostgres(dataDir, port, quiet);
    const lost: Error[] = [];
    embedded.keepRunning((error) => lost.push(error), 1500);

    await stopPostmaster(databaseDir);
    const deadline = Date.now() + 10_000;
    while ((await runningPostmaster(databaseDir))?.status !== 'ready' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await query(embedded.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);

    // The port taken the moment the server is gone (again, should the keeper have been quicker).
    const rogue = net.createServer((socket) => socket.destroy());
    for (let attempt = 1; ; attempt++) {
      await stopPostmaster(databaseDir);
      const bound = await new Promise<boolean>((resolve) => {
        rogue.once('error', () => resolve(false));
        rogue.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (bound) break;
      if (attempt === 5) throw new Error(`port ${port} could not be taken from the restarted server`);
    }
    try {
      const giving = Date.now() + 10_000;
      while (lost.length === 0 && Date.now() < giving) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(lost[0]).toBeInstanceOf(EmbeddedPortTakenError);
    } finally {
      await new Promise((resolve) => rogue.close(resolve));
    }
    await embedded.stop();
  }, 60_000);
});
