import { sql } from 'kysely';
import { PROJECTIONS } from '../../../projections/index.js';
import type { DatabaseConnection } from '../database/database.js';
import { projectionSchema } from './projection.js';
import { verifyProjection } from './projection-verify.js';
import { type ProjectedLedger, startProjectedLedger } from '../../../test/support/projection-fixture.js';
import type { PostgresEventStore } from '../event-store/postgres-event-store.js';

let ledger: ProjectedLedger;
let connection: DatabaseConnection;
let store: PostgresEventStore;

const transactions = PROJECTIONS.find((projection) => projection.name === 'transactions')!;
const transactionsTable = sql.table(`${projectionSchema(transactions)}.transactions`);

beforeAll(async () => {
  // Odd batch boundaries: a model that depended on where batches end would show it here.
  ledger = await startProjectedLedger(PROJECTIONS, { events: 1_500, batchSize: 97, timeoutMs: 150_000 });
  ({ connection, store } = ledger);
}, 180_000);

afterAll(() => ledger.close());

describe('verifyProjection', () => {
  it('finds every read model equal to a fresh replay, table by table, while events keep coming', async () => {
    let appending = true;
    const appends = (async () => {
      for (let i = 0; appending; i += 1) {
        await store.appendToStream(`tag-${crypto.randomUUID()}`, [{ type: 'TagCreated', data: { tagId: crypto.randomUUID(), name: `Late ${i}`, color: 'red' }, metadata: metadata() }], 'no_stream');
      }
    })();
    try {
      for (const projection of PROJECTIONS) {
        const verified = await verifyProjection(connection.db, store, projection);
        console.info(`verify ${projection.name}: ${verified.tables.map((table) => `${table.table} ${table.liveRows} rows ${table.agree ? 'agree' : 'DISAGREE'}`).join(', ')}`);
        expect(verified).toMatchObject({ projection: projection.name, version: projection.version, agree: true });
        expect(verified.tables.map((table) => table.table).sort()).toEqual([...projection.tables].sort());
      }
    } finally {
      appending = false;
      await appends;
    }
    const verified = await verifyProjection(connection.db, store, transactions);
    expect(verified.tables[0].liveRows).toBe(1_500 - 75);
    expect(verified.tables[0].liveChecksum).toMatch(/^[0-9a-f]{32}$/);
    // No scratch schema is left behind.
    const schemas = await sql<{ nspname: string }>`SELECT nspname FROM pg_namespace WHERE nspname LIKE '%verify%'`.execute(connection.db);
    expect(schemas.rows).toEqual([]);
  }, 120_000);

  it('disagrees on the table whose row was changed behind the projection’s back, and on a row deleted', async () => {
    await sql`UPDATE ${transactionsTable} SET name = 'tampered' WHERE id = (SELECT id FROM ${transactionsTable} ORDER BY id LIMIT 1)`.execute(connection.db);
    const changed = await verifyProjection(connection.db, store, transactions);
    expect(changed.agree).toBe(false);
    expect(changed.tables[0]).toMatchObject({ table: 'transactions', agree: false, liveRows: 1_425, replayRows: 1_425 });
    expect(changed.tables[0].liveChecksum).not.toBe(changed.tables[0].replayChecksum);

    await sql`DELETE FROM ${transactionsTable} WHERE name = 'tampered'`.execute(connection.db);
    const deleted = await verifyProjection(connection.db, store, transactions);
    expect(deleted.tables[0]).toMatchObject({ agree: false, liveRows: 1_424, replayRows: 1_425 });
  }, 60_000);
});

function metadata() {
  const id = crypto.randomUUID();
  return { userId: id, actor: 'user' as const, requestId: id, causationId: id, correlationId: id, occurredAt: new Date().toISOString(), schemaVersion: 1 };
}
