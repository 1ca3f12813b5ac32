import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from './support/test-app.js';

/** Sessions to this test database that LISTEN for API-key invalidations. */
async function listeners(t: TestApp): Promise<number> {
  const { rows } = await sql<{ count: number }>`
    SELECT count(*)::int AS count FROM pg_stat_activity
     WHERE datname = current_database() AND query = 'LISTEN ledgerline_api_key_invalidations'`.execute(t.runtime.database.db);
  return rows[0]?.count ?? 0;
}

async function keyIdOf(t: TestApp, key: string): Promise<string> {
  const row = await t.runtime.database.db.selectFrom('api_keys').select('id').where('prefix', '=', key.slice(0, 12)).executeTakeFirstOrThrow();
  return row.id;
}

describe('the API-key cache in the service', () => {
  it('is on by default: it listens for invalidations, and a key an operator revokes in SQL is refused as soon as the notification arrives', async () => {
    const t = await startTestApp();
    try {
      expect(await listeners(t)).toBe(1);
      const { key } = await t.newUser();
      await t.as(key).get('/v1/accounts').expect(200);
      await t.as(key).get('/v1/accounts').expect(200);
      const revokedAt = performance.now();
      await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${await keyIdOf(t, key)}`.execute(t.runtime.database.db);
      let status = 200;
      for (let attempt = 0; attempt < 500 && status === 200; attempt += 1) status = (await t.as(key).get('/v1/accounts')).status;
      expect(status).toBe(401);
      console.log(`revoked in SQL → first 401 after ${(performance.now() - revokedAt).toFixed(1)} ms (HTTP round trips included)`);
    } finally {
      await t.close();
    }
  });

  it('is off with API_KEY_CACHE_SIZE=0: no LISTEN, every key read from the database', async () => {
    const t = await startTestApp({ env: { API_KEY_CACHE_SIZE: '0' } });
    try {
      expect(await listeners(t)).toBe(0);
      const { key } = await t.newUser();
      await t.as(key).get('/v1/accounts').expect(200);
      await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${await keyIdOf(t, key)}`.execute(t.runtime.database.db);
      await t.as(key).get('/v1/accounts').expect(401);
    } finally {
      await t.close();
    }
  });
});
