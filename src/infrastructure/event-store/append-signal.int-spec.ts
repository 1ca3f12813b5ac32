import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { connectDatabase, type DatabaseConnection } from '../database/database.js';
import { AppendSignal } from './append-signal.js';

let database: TestDatabase;
let connection: DatabaseConnection;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = connectDatabase(database.url, { max: 5 });
});

afterAll(async () => {
  await connection.close();
  await database.drop();
});

function adminUrl(): string {
  const url = new URL(database.url);
  url.pathname = '/postgres';
  return url.toString();
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listenerPid(channel: string): Promise<number | null> {
  const result = await connection.pool.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle' AND query = $1",
    [`LISTEN ${channel}`],
  );
  return result.rows[0]?.pid ?? null;
}

async function eventually<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await delay(20);
  }
}

describe('append signal', () => {
  it('listens again after its connection is terminated, and tells its consumer to catch up', async () => {
    const channel = `test_${randomBytes(4).toString('hex')}`;
    const payloads: string[] = [];
    let relistens = 0;
    const signal = new AppendSignal(connection.pool, channel, (payload) => payloads.push(payload), {
      onRelisten: () => (relistens += 1),
      retryInitialMs: 50,
    });
    try {
      await signal.listen();
      await connection.pool.query('SELECT pg_notify($1, $2)', [channel, 'before']);
      await eventually(async () => payloads.includes('before'), 2000);

      const pid = await eventually(() => listenerPid(channel), 2000);
      await connection.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await eventually(async () => !signal.listening, 2000);
      const newPid = await eventually(async () => signal.listening && (await listenerPid(channel)), 3000);
      expect(newPid).not.toBe(pid);
      expect(relistens).toBe(1);

      await connection.pool.query('SELECT pg_notify($1, $2)', [channel, 'after']);
      await eventually(async () => payloads.includes('after'), 2000);
    } finally {
      await signal.close();
    }
  });

  it('keeps trying to listen, with backoff, while the database refuses connections, and stops when closed', async () => {
    const channel = `test_${randomBytes(4).toString('hex')}`;
    const payloads: string[] = [];
    // A pool of its own with room for the listener alone: no idle connection to fall back on.
    const own = connectDatabase(database.url, { max: 1 });
    const signal = new AppendSignal(own.pool, channel, (payload) => payloads.push(payload), { retryInitialMs: 50, retryMaxMs: 200 });
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      await signal.listen();
      const pid = await eventually(() => listenerPid(channel), 2000);
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await eventually(async () => !signal.listening, 2000);
      // Every attempt meanwhile fails to connect; none may leak a client or end the retries.
      await delay(700);
      expect(signal.listening).toBe(false);
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await eventually(async () => signal.listening, 3000);
      await connection.pool.query('SELECT pg_notify($1, $2)', [channel, 'back']);
      await eventually(async () => payloads.includes('back'), 2000);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.end();
      await signal.close();
      await own.close();
    }
    expect(signal.listening).toBe(false);
    expect(await listenerPid(channel)).toBeNull();
  });

  it('wakes a waiting reader on a notification well before its poll timeout', async () => {
    const channel = `test_${randomBytes(4).toString('hex')}`;
    const signal = new AppendSignal(connection.pool, channel);
    try {
      await signal.listen();
      // The poll timeout is far beyond the test's generous deadline: a reader that settles before
      // the deadline can only have been woken by the notification.
      const started = Date.now();
      const woken = signal.next(60_000).then(() => 'woken' as const);
      await connection.pool.query('SELECT pg_notify($1, $2)', [channel, '']);
      let deadline: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([woken, new Promise<'poll timeout'>((resolve) => (deadline = setTimeout(() => resolve('poll timeout'), 10_000)))]);
      clearTimeout(deadline);
      console.info(`append signal: a waiting reader woke ${Date.now() - started} ms after the notification was sent (poll timeout 60 s)`);
      expect(outcome).toBe('woken');
    } finally {
      await signal.close();
    }
  });
});
