import type pg from 'pg';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp({ env: { READ_YOUR_WRITES_TIMEOUT_MS: '10000' } });
  ({ key, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

/** Holds the transactions read model's table so its projector cannot write, until `release()`. */
async function blockTransactionsProjector(): Promise<{ release(): Promise<void> }> {
  const client: pg.PoolClient = await t.runtime.database.pool.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE transactions IN EXCLUSIVE MODE');
  return {
    async release() {
      await client.query('COMMIT');
      client.release();
    },
  };
}

describe('read-your-writes', () => {
  it('answers 503 READ_MODEL_LAGGING with the request id, never 404, when the read model is late; the write is kept and shows once it catches up', async () => {
    const block = await blockTransactionsProjector();
    let id: string;
    try {
      const started = Date.now();
      const response = await t
        .as(key)
        .post('/v1/transactions', { accountId, amount: -3, date: '2026-11-20', name: 'Late but kept' })
        .set('X-Request-Id', 'ryw-lagging-1')
        .expect(503);
      // The answer comes after the 10 s read-your-writes timeout (generous: a loaded 2-core machine running the chaos specs beside it), not never: bound × 3 + 5 s, a margin a loaded machine cannot miss.
      const answeredMs = Date.now() - started;
      console.info(`a write whose read model is blocked answered 503 after ${answeredMs} ms (timeout 10000 ms)`);
      expect(answeredMs).toBeLessThan(10_000 * 3 + 5000);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body).toMatchObject({ code: 'READ_MODEL_LAGGING', requestId: 'ryw-lagging-1', error: expect.stringContaining('saved') });
      const stored = await t.runtime.database.pool.query<{ data: { transactionId: string } }>(
        "SELECT data FROM events WHERE type = 'TransactionCreated' AND metadata->>'requestId' = 'ryw-lagging-1'",
      );
      expect(stored.rows).toHaveLength(1);
      id = stored.rows[0].data.transactionId;

      // Writes that do not read the blocked model answer as usual meanwhile: 201 (not 503 LAGGING)
      // while the transactions model is still blocked (released only in `finally`).
      const other = Date.now();
      await t.as(key).post('/v1/accounts', { name: 'Savings', type: 'bank', subtype: 'savings', currentBalance: 5 }).expect(201);
      console.info(`read-your-writes: a write to another read model answered 201 in ${Date.now() - other} ms while the transactions model was blocked`);
    } finally {
      await block.release();
    }
    await t.settle(10_000);
    const { body } = await t.as(key).get(`/v1/transactions/${id}`).expect(200);
    expect(body.name).toBe('Late but kept');
  });

  it("answers 503 READ_MODEL_FAILED when the write's own read model parks its event, and later writes answer as usual", async () => {
    // A fault only this one row meets, as a projector bug would: the runner retries it (under a second)
    // and parks it, within the read-your-writes bound.
    await t.runtime.database.pool.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name = 'poison' THEN RAISE EXCEPTION 'this row cannot be applied'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
    const started = Date.now();
    const response = await t.as(key).post('/v1/transactions', { accountId, amount: -1, date: '2026-11-20', name: 'poison' }).set('X-Request-Id', 'ryw-parked-1').expect(503);
    console.info(`read-your-writes: a parked write answered 503 READ_MODEL_FAILED after ${Date.now() - started} ms`);
    expect(response.body).toMatchObject({ code: 'READ_MODEL_FAILED', requestId: 'ryw-parked-1' });
    expect(response.headers['retry-after']).toBeUndefined();

    // The parked event holds nothing up: the next write to the same read model answers 201, its
    // row read back (a model stuck behind the parked event would answer 503 READ_MODEL_LAGGING).
    const next = Date.now();
    const fine = await t.as(key).post('/v1/transactions', { accountId, amount: -2, date: '2026-11-20', name: 'fine' }).expect(201);
    console.info(`read-your-writes: the write after the parked one answered 201 in ${Date.now() - next} ms`);
    expect(fine.body).toMatchObject({ name: 'fine' });
  });
});
