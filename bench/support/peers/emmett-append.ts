import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import { rawLoadSamples } from '../raw-load.js';

/**
 * The reference for PATCH /v1/transactions/{id}: Emmett's PostgreSQL event store appending one
 * event per call from CONNECTIONS concurrent callers, on a pool of POOL_SIZE connections to
 * DATABASE_URL (a database of its own). STREAMS streams are created first (one append each,
 * unmeasured), so the measured appends go to existing streams, as a PATCH does; then it prints
 * `ready`. Each line `run <seconds>` on stdin runs the load that long and prints one JSON line, the
 * LoadSamples; it ends when stdin closes.
 */
const connections = Number(process.env.CONNECTIONS ?? 32);
// A whole number of streams per caller: each caller appends to its own streams only, as no two
// PATCHes in the bench edit one transaction at once (Emmett would answer a version conflict).
const streamCount = Math.ceil(Number(process.env.STREAMS ?? 2000) / connections) * connections;

const pool = new pg.Pool({ connectionString: String(process.env.DATABASE_URL), max: Number(process.env.POOL_SIZE ?? 30) });
const store = getPostgreSQLEventStore(String(process.env.DATABASE_URL), { connectionOptions: { pool } });
const userId = randomUUID();
const streams = Array.from({ length: streamCount }, () => randomUUID());

function edited(transactionId: string, notes: string) {
  const metadata = { userId, actor: 'user', requestId: randomUUID(), causationId: randomUUID(), correlationId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 };
  return { type: 'TransactionEdited', data: { transactionId, notes }, metadata };
}

try {
  await store.schema.migrate();
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      for (let index = worker; index < streams.length; index += connections) await store.appendToStream(`transaction-${streams[index]}`, [edited(streams[index], 'created')]);
    }),
  );
  console.log('ready');
  for await (const line of createInterface({ input: process.stdin })) {
    const seconds = Number(line.split(' ')[1]);
    const samples = await rawLoadSamples(connections, seconds * 1000, async (worker, iteration) => {
      const id = streams[(worker + iteration * connections) % streams.length];
      await store.appendToStream(`transaction-${id}`, [edited(id, `bench ${worker}/${iteration}`)]);
    });
    console.log(JSON.stringify(samples));
  }
} finally {
  await store.close();
  await pool.end().catch(() => undefined);
}
