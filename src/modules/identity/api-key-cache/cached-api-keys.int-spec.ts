import { performance } from 'node:perf_hooks';
import { jest } from '@jest/globals';
import { sql } from 'kysely';
import { createMigratedDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { connectDatabase, type DatabaseConnection } from '../../../infrastructure/database/database.js';
import { ensureUser, issueApiKey, type IssuedApiKey, revokeApiKey, touchApiKey } from '../identity.store.js';
import { CachedApiKeys } from './cached-api-keys.js';

/** Two service instances on one database, each with its own pool and LISTEN connection. */
interface Instance {
  readonly name: string;
  readonly connection: DatabaseConnection;
  readonly keys: CachedApiKeys;
}

let database: TestDatabase;
let admin: DatabaseConnection;
const instances: Instance[] = [];
const TIMING = { pingIntervalMs: 50, staleAfterMs: 2_000, relistenAfterMs: 50 };

async function startInstance(name: string, start = true): Promise<Instance> {
  const connection = connectDatabase(database.url, { max: 4, applicationName: name });
  const keys = new CachedApiKeys(connection.db, connection.pool, { limits: { maxEntries: 100, ttlMs: 60_000 }, timing: TIMING });
  if (start) await keys.start();
  const instance = { name, connection, keys };
  instances.push(instance);
  return instance;
}

beforeAll(async () => {
  const migrated = await createMigratedDatabase();
  database = migrated.database;
  admin = migrated.connection;
});
afterEach(async () => {
  for (const instance of instances.splice(0)) {
    await instance.keys.close();
    await instance.connection.close();
  }
});
afterAll(async () => {
  await admin.close();
  await database.drop();
});

async function newKey(): Promise<{ userId: string; issued: IssuedApiKey }> {
  const { user } = await ensureUser(admin.db, `${Math.random().toString(36).slice(2)}@example.com`);
  return { userId: user.id, issued: await issueApiKey(admin.db, user.id, 'script', ['read', 'write'], new Date()) };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const trusted = (instance: Instance) => until(() => instance.keys.invalidations.trusted(), `${instance.name} hears invalidations`);

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

describe('API keys cached on two instances', () => {
  it('a key revoked through one instance is refused by the other by the time the revocation answers, which waits for its acknowledgement (delays printed)', async () => {
    const a = await startInstance('instance-a');
    const b = await startInstance('instance-b');
    await Promise.all([trusted(a), trusted(b)]);
    // A knows B is there (its pings) before it revokes anything.
    await until(() => a.keys.invalidations.peers().includes(b.keys.invalidations.instance), 'instance A hears instance B');
    const settled = jest.spyOn(a.keys.invalidations, 'settled');
    const heardAfterMs: number[] = [];
    const answeredAfterMs: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      const { userId, issued } = await newKey();
      expect((await a.keys.authenticate(issued.key))?.credential).toEqual({ kind: 'apiKey', apiKeyId: issued.id });
      expect((await b.keys.authenticate(issued.key))?.user.id).toBe(userId);
      expect(b.keys.cache.size).toBeGreaterThan(0);

      let heardAt = Number.NaN;
      void b.keys.invalidations.echoOf(issued.id, 10_000).heard.then(() => (heardAt = performance.now()));
      const started = performance.now();
      expect(await a.keys.revoke(userId, issued.id, new Date())).toBe(true);
      answeredAfterMs.push(performance.now() - started);
      // Nothing awaited on B's side: the revocation's answer already means B refuses the key.
      expect(b.keys.cache.size).toBe(0);
      expect(await b.keys.authenticate(issued.key)).toBeNull();
      heardAfterMs.push(heardAt - started);
      expect(await a.keys.authenticate(issued.key)).toBeNull();
      // Answered on B's acknowledgement, not by waiting out the staleness bound.
      expect(await settled.mock.results[round].value).toBe(true);
    }
    // The same, timed from the moment the revoking UPDATE's commit is acknowledged to its connection.
    const afterCommitMs: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      const { userId, issued } = await newKey();
      await b.keys.authenticate(issued.key);
      let heardAt = Number.NaN;
      const heardByB = b.keys.invalidations.echoOf(issued.id, 10_000);
      void heardByB.heard.then(() => (heardAt = performance.now()));
      await revokeApiKey(admin.db, userId, issued.id, new Date());
      const committedAt = performance.now();
      expect(await heardByB.heard).toBe(true);
      afterCommitMs.push(heardAt - committedAt);
      expect(await b.keys.authenticate(issued.key)).toBeNull();
    }
    afterCommitMs.sort((x, y) => x - y);
    console.log(
      `commit acknowledged → heard by instance B: p50 ${percentile(afterCommitMs, 0.5).toFixed(2)} ms, max ${percentile(afterCommitMs, 1).toFixed(2)} ms (negative: heard before the acknowledgement arrived)`,
    );
    heardAfterMs.sort((x, y) => x - y);
    answeredAfterMs.sort((x, y) => x - y);
    console.log(
      `revocation through instance A (from the call, UPDATE round trip included) → heard by instance B: p50 ${percentile(heardAfterMs, 0.5).toFixed(2)} ms, max ${percentile(heardAfterMs, 1).toFixed(2)} ms; ` +
        `A's revoke answered (after B's acknowledgement): p50 ${percentile(answeredAfterMs, 0.5).toFixed(2)} ms, max ${percentile(answeredAfterMs, 1).toFixed(2)} ms (20 rounds)`,
    );
  });

  it('a revocation waits out the staleness bound for an instance that hears but does not acknowledge, and answers then', async () => {
    const a = await startInstance('instance-a');
    const b = await startInstance('instance-b');
    await Promise.all([trusted(a), trusted(b)]);
    await until(() => a.keys.invalidations.peers().includes(b.keys.invalidations.instance), 'instance A hears instance B');
    // B forgets what it hears but its acknowledgements never leave (a lost notification, a stalled process).
    Object.assign(b.keys.invalidations, { acknowledge: async () => undefined });
    const settled = jest.spyOn(a.keys.invalidations, 'settled');
    const { userId, issued } = await newKey();
    await b.keys.authenticate(issued.key);
    const started = performance.now();
    expect(await a.keys.revoke(userId, issued.id, new Date())).toBe(true);
    const answeredMs = performance.now() - started;
    expect(await settled.mock.results[0].value).toBe(false);
    expect(await b.keys.authenticate(issued.key)).toBeNull();
    console.log(`revocation with an instance not acknowledging answered after ${answeredMs.toFixed(0)} ms (staleness bound ${TIMING.staleAfterMs} ms)`);
  });

  it("hears an operator's SQL: a revocation, a user's email changed, a deleted key; a key merely used stays cached", async () => {
    const b = await startInstance('instance-b');
    await trusted(b);
    const [first, second, third] = [await newKey(), await newKey(), await newKey()];
    for (const { issued } of [first, second, third]) await b.keys.authenticate(issued.key);
    expect(b.keys.cache.size).toBe(3);

    await touchApiKey(admin.db, first.issued.id, new Date());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(b.keys.cache.size).toBe(3);

    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${first.issued.id}`.execute(admin.db);
    await until(() => b.keys.cache.size === 2, 'the revoked key is forgotten');
    expect(await b.keys.authenticate(first.issued.key)).toBeNull();

    await sql`UPDATE users SET email = 'renamed@example.com' WHERE id = ${second.userId}`.execute(admin.db);
    await until(() => b.keys.cache.size === 1, "the renamed user's key is forgotten");
    expect((await b.keys.authenticate(second.issued.key))?.user.email).toBe('renamed@example.com');

    await sql`DELETE FROM api_keys WHERE id = ${third.issued.id}`.execute(admin.db);
    await until(async () => (await b.keys.authenticate(third.issued.key)) === null, 'the deleted key is refused');
  });

  it('reads every key from the database while not listening: before the first LISTEN, and after the connection is killed until it is back, then starts empty', async () => {
    const { userId, issued } = await newKey();
    const unstarted = await startInstance('instance-unstarted', false);
    expect((await unstarted.keys.authenticate(issued.key))?.user.id).toBe(userId);
    expect(unstarted.keys.cache.size).toBe(0);

    const b = await startInstance('instance-b');
    await trusted(b);
    await b.keys.authenticate(issued.key);
    expect(b.keys.cache.size).toBe(1);

    const killedAt = performance.now();
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'instance-b' AND query LIKE 'LISTEN %'`.execute(admin.db);
    await until(() => !b.keys.invalidations.trusted(), 'instance B notices the LISTEN connection is gone');
    // Deaf: the cached entry is dropped, and a revocation whose notification nobody hears is still refused at once.
    expect((await b.keys.authenticate(issued.key))?.user.id).toBe(userId);
    expect(b.keys.cache.size).toBe(0);
    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${issued.id}`.execute(admin.db);
    expect(await b.keys.authenticate(issued.key)).toBeNull();

    await trusted(b);
    console.log(`LISTEN connection killed → listening and trusted again after ${(performance.now() - killedAt).toFixed(0)} ms (relisten backoff ${TIMING.relistenAfterMs} ms, pings every ${TIMING.pingIntervalMs} ms)`);
    expect(b.keys.cache.size).toBe(0);
    const fresh = await newKey();
    await b.keys.authenticate(fresh.issued.key);
    expect(b.keys.cache.size).toBe(1);
  });

  it('reads every key from the database while listening but not hearing its own pings (a LISTEN on the wrong database, a pooler that drops notifications)', async () => {
    const { userId, issued } = await newKey();
    const connection = connectDatabase(database.url, { max: 4, applicationName: 'instance-deaf' });
    const elsewhere = connectDatabase(new URL('/postgres', database.url).toString(), { max: 2, applicationName: 'instance-deaf-listen' });
    const keys = new CachedApiKeys(connection.db, elsewhere.pool, { limits: { maxEntries: 100, ttlMs: 60_000 }, timing: TIMING });
    try {
      await keys.start();
      await new Promise((resolve) => setTimeout(resolve, 5 * TIMING.pingIntervalMs));
      expect(keys.invalidations.trusted()).toBe(false);
      expect((await keys.authenticate(issued.key))?.user.id).toBe(userId);
      expect(keys.cache.size).toBe(0);
      await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${issued.id}`.execute(admin.db);
      expect(await keys.authenticate(issued.key)).toBeNull();
    } finally {
      await keys.close();
      await connection.close();
      await elsewhere.close();
    }
  });

  it('does not store the answer of a read that a revocation overtook', async () => {
    const b = await startInstance('instance-b');
    await trusted(b);
    const { issued } = await newKey();
    // The read starts, the key is revoked and heard before the read's answer is stored.
    const generation = b.keys.cache.generation;
    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${issued.id}`.execute(admin.db);
    await until(() => b.keys.cache.generation !== generation, 'the revocation is heard');
    const stale = { user: { id: 'u', email: null, name: null }, scopes: ['read'] as const, credential: { kind: 'apiKey' as const, apiKeyId: issued.id } };
    expect(b.keys.cache.remember('hash', stale, generation)).toBe(false);
  });
});
