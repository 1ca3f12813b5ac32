import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { PROJECTIONS } from '../../../projections/index.js';
import type { DatabaseConnection } from '../database/database.js';
import { projectionSchema } from './projection.js';
import { checksumColumns, checksumTable } from './projection-checksum.js';
import { RebuildRefusedError, rebuildProjection, shadowSchema } from './projection-rebuild.js';
import { capturingLog, eventMetadata } from './recording-projection.test-support.js';
import { verifyProjection } from './projection-verify.js';
import { type ProjectedLedger, startProjectedLedger } from '../../../test/support/projection-fixture.js';
import type { PostgresEventStore } from '../event-store/postgres-event-store.js';
import type { CheckpointWatch } from './checkpoint-watch.js';

let ledger: ProjectedLedger;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;
const log = capturingLog();

const transactions = PROJECTIONS.find((projection) => projection.name === 'transactions')!;
const live = projectionSchema(transactions);

beforeAll(async () => {
  ledger = await startProjectedLedger([transactions], { events: 2_000, timeoutMs: 60_000, log });
  ({ connection, store, watch } = ledger);
}, 90_000);

afterAll(() => ledger.close());

async function liveChecksum(): Promise<string> {
  const columns = await checksumColumns(connection.db, live, 'transactions');
  const { rows, checksum } = await checksumTable(connection.db, live, 'transactions', columns);
  return `${rows} ${checksum}`;
}

async function checkpoint() {
  return connection.db.selectFrom('projection_versions').select(['position_commit', 'position_prepare', 'events_applied']).where('name', '=', 'transactions').executeTakeFirstOrThrow();
}

async function leftovers(): Promise<string[]> {
  const schemas = await sql<{ nspname: string }>`SELECT nspname FROM pg_namespace WHERE nspname LIKE '%\\_rebuild' OR nspname LIKE '%\\_replaced'`.execute(connection.db);
  const rows = await connection.db.selectFrom('projection_rebuilds').select('name').execute();
  return [...schemas.rows.map((row) => row.nspname), ...rows.map((row) => `row ${row.name}`)];
}

function transactionCreated(accountId: string, userId: string, name: string) {
  const transactionId = randomUUID();
  const data = {
    transactionId, accountId, source: 'manual', amount: '-12.50', date: '2026-11-20', name, merchantName: null, categoryId: null, notes: null,
    pending: false, paymentChannel: 'online', location: null, tagIds: [], authorizedDate: null,
  };
  return { streamId: `transaction-${transactionId}`, event: { type: 'TransactionCreated', data, metadata: eventMetadata(userId) } };
}

describe('projections rebuild', () => {
  it('builds tables equal to the ones the live runner built, and puts the checkpoint where it was', async () => {
    const before = await liveChecksum();
    const { events_applied: applied, ...position } = await checkpoint();
    const outcome = await rebuildProjection(connection, store, transactions, { batchSize: 700 });
    expect(outcome).toMatchObject({ projection: 'transactions', resumed: false, parked: 0, applied: Number(applied) });
    expect(await liveChecksum()).toBe(before);
    expect(await checkpoint()).toEqual({ ...position, events_applied: applied });
    expect(await leftovers()).toEqual([]);
  }, 60_000);

  it('resumes an interrupted rebuild where its last committed batch left it', async () => {
    const before = await liveChecksum();
    let batches = 0;
    const crash = new Error('killed');
    await expect(
      rebuildProjection(connection, store, transactions, {
        batchSize: 300,
        onProgress: () => {
          batches += 1;
          if (batches === 3) throw crash;
        },
      }),
    ).rejects.toBe(crash);
    const progress = await connection.db.selectFrom('projection_rebuilds').selectAll().executeTakeFirstOrThrow();
    expect(progress).toMatchObject({ name: 'transactions', shadow_schema: shadowSchema(transactions) });
    expect(Number(progress.events_applied)).toBeGreaterThan(0);
    // The live model has not moved.
    expect(await liveChecksum()).toBe(before);

    const seen: number[] = [];
    const resumed = await rebuildProjection(connection, store, transactions, { batchSize: 300, onProgress: (at) => seen.push(at.doneAtStart) });
    expect(resumed.resumed).toBe(true);
    expect(seen[0]).toBeGreaterThan(0);
    expect(await liveChecksum()).toBe(before);
    expect(await leftovers()).toEqual([]);
  }, 60_000);

  it('refuses a second rebuild of the same version while one runs', async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = rebuildProjection(connection, store, transactions, {
      batchSize: 500,
      onProgress: () => started(),
    });
    await running;
    await expect(rebuildProjection(connection, store, transactions)).rejects.toThrow(RebuildRefusedError);
    await first;
  }, 60_000);

  it('switches under readers and writers: no reader errs or sees fewer rows, and the daemon carries on in the new tables without an error', async () => {
    const accountId = randomUUID();
    const userId = randomUUID();
    let writing = true;
    let written = 0;
    // Four writers, so that inline writes are in flight as the switch renames the schemas.
    const writes = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (writing) {
          const { streamId, event } = transactionCreated(accountId, userId, `During ${written}`);
          await store.appendToStream(streamId, [event], 'no_stream');
          written += 1;
        }
      }),
    );
    const readerErrors: unknown[] = [];
    const shrinks: string[] = [];
    let reads = 0;
    let reading = true;
    const readers = Array.from({ length: 3 }, async () => {
      let most = 0;
      while (reading) {
        try {
          // Unqualified, as the service reads: the connection's search_path names the live schema.
          const result = await sql<{ count: number }>`SELECT count(*)::int AS count FROM transactions`.execute(connection.db);
          const { count } = result.rows[0];
          if (count < most) shrinks.push(`${most} → ${count}`);
          most = Math.max(most, count);
          reads += 1;
        } catch (error) {
          readerErrors.push(error);
        }
      }
    });
    let outcome;
    try {
      outcome = await rebuildProjection(connection, store, transactions, { batchSize: 200 });
    } finally {
      writing = false;
      await writes;
      reading = false;
      await Promise.all(readers);
    }
    console.info(`rebuild under load: ${reads} reads, ${written} transactions created meanwhile, switched at ${outcome.position.commit}/${outcome.position.prepare}`);
    expect(readerErrors).toEqual([]);
    expect(shrinks).toEqual([]);
    expect(written).toBeGreaterThan(0);

    // The daemon's next batch read the switched checkpoint under its row lock and applies what came after it.
    expect(await watch.waitFor(await store.headPosition(), 30_000)).toBe(true);
    const names = await sql<{ count: number }>`SELECT count(*)::int AS count FROM transactions WHERE name LIKE 'During %'`.execute(connection.db);
    expect(names.rows[0].count).toBe(written);
    // And keeps applying afterwards, each write in its turn, with no error at all (no stand-down loop).
    for (let i = 0; i < 20; i += 1) {
      const { streamId, event } = transactionCreated(accountId, userId, `After ${i}`);
      const appended = await store.appendToStream(streamId, [event], 'no_stream');
      expect(await watch.waitFor(appended.position, 10_000)).toBe(true);
    }
    expect(log.lines.filter((line) => line.level === 'error')).toEqual([]);
    expect((await verifyProjection(connection.db, store, transactions)).agree).toBe(true);
    expect(await leftovers()).toEqual([]);
  }, 120_000);
});
