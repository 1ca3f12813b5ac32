import { sql } from 'kysely';
import { PROJECTIONS } from '../projections/index.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  first = await startTestApp();
  second = await startTestApp({ env: { DATABASE_URL: first.runtime.database.url } });
});
afterAll(async () => {
  await second.close();
  await first.close();
});

describe('two service instances on one database', () => {
  it('apply every projection exactly once, and each instance reads its own writes', async () => {
    const { key } = await first.newUser();
    const accountId = (await second.as(key).post('/v1/accounts', { name: 'Shared', type: 'bank', subtype: 'checking', currentBalance: 0 }).expect(201)).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const instance = i % 2 === 0 ? first : second;
      ids.push((await instance.as(key).post('/v1/transactions', { accountId, amount: -i - 1, date: '2026-11-01', name: `t${i}` }).expect(201)).body.id);
    }
    const edits = await Promise.all(ids.map((id, i) => (i % 2 === 0 ? second : first).as(key).patch(`/v1/transactions/${id}`, { notes: `edited ${i}` }).expect(200)));
    expect(edits.map((response) => response.body.notes)).toEqual(ids.map((_, i) => `edited ${i}`));
    expect((await first.as(key).get('/v1/transactions?limit=500').expect(200)).body.transactions).toHaveLength(10);

    // Every projection has applied each event of its types exactly once, whichever instance led it.
    const db = first.runtime.database.db;
    const head = await first.runtime.eventStore.committedHeadPosition();
    expect(await first.runtime.watch.waitFor(head, 10_000)).toBe(true);
    expect(await second.runtime.watch.waitFor(head, 10_000)).toBe(true);
    for (const projection of PROJECTIONS) {
      const stored = await sql<{ count: number }>`SELECT count(*)::int AS count FROM events WHERE type = ANY(${[...projection.eventTypes]}::text[])`.execute(db);
      const checkpoint = await db
        .selectFrom('projection_versions')
        .select('events_applied')
        .where('name', '=', projection.name)
        .where('version', '=', projection.version)
        .executeTakeFirstOrThrow();
      expect([projection.name, Number(checkpoint.events_applied)]).toEqual([projection.name, stored.rows[0].count]);
    }
    // Each creation's name, amount and date, and each edit's notes: once.
    const activity = await sql<{ kind: string; count: number }>`SELECT kind, count(*)::int AS count FROM transaction_activity GROUP BY kind ORDER BY kind`.execute(db);
    expect(activity.rows).toEqual([
      { kind: 'created', count: 30 },
      { kind: 'edited', count: 10 },
    ]);
    expect(await db.selectFrom('parked_events').selectAll().execute()).toEqual([]);
  });
});
