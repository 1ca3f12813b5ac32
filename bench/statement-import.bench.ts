import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { benchPostgres } from './support/bench-postgres.js';
import { sampleMemory } from './support/memory-sampler.js';
import { stopChildren } from './support/peers/peer-process.js';
import { startSeededService } from './support/seeded-service.js';
import { createScratchDatabase, waitFor } from './support/service-process.js';

/**
 * npm run bench:import [-- --rows 100000 --transactions 1000]
 * A statement of `rows` CSV rows end to end — the file in (POST /v1/accounts/{id}/imports), the
 * job done and every row listed in the transactions read model — beside the same events inserted
 * raw into the event store in one statement per 10,000 and projected by the service, in the same
 * run on the same service; and the service's peak resident memory while it imports.
 */
const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, transactions: { type: 'string', default: '1000' } } });
const rows = Number(values.rows);
const port = 39_700;

/** A US bank's export: MM/DD/YYYY, names with commas, refunds and paychecks among card spending. */
function statementCsv(count: number): Buffer {
  const lines = ['Posted Date,Description,Amount,Memo'];
  for (let row = 0; row < count; row += 1) {
    const day = new Date(Date.UTC(2026, 10, 22) - (row % 730) * 86_400_000);
    const date = `${String(day.getUTCMonth() + 1).padStart(2, '0')}/${String(day.getUTCDate()).padStart(2, '0')}/${day.getUTCFullYear()}`;
    const amount = row % 50 === 0 ? '2450.00' : `-${(1 + ((row * 7919) % 25_000) / 100).toFixed(2)}`;
    lines.push(`${date},"MERCHANT ${row % 997}, STORE #${row}",${amount},${row % 10 === 0 ? 'card purchase' : ''}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const server = await benchPostgres(port + 10);
  const scratch = await createScratchDatabase('ledgerline_import', server.adminUrl);
  const children: ChildProcess[] = [];
  try {
    console.log(`on ${server.description}`);
    const { base, auth, database, service, userId } = await startSeededService(scratch.url, port, Number(values.transactions), children);
    const newAccount = async (name: string) =>
      ((await (await fetch(`${base}/v1/accounts`, { method: 'POST', headers: auth, body: JSON.stringify({ name, type: 'bank', subtype: 'checking', currentBalance: 0 }) })).json()) as { id: string }).id;
    const listed = async (accountId: string) => Number((await database.pool.query<{ count: string }>('SELECT count(*) FROM transactions WHERE account_id = $1', [accountId])).rows[0].count);
    const file = statementCsv(rows);
    console.log(`${rows} rows, ${(file.length / 1024 / 1024).toFixed(1)} MB of CSV`);

    const imported = await newAccount('Imported');
    const { result: importSeconds, peakRssMb, highWaterMarkMb } = await sampleMemory(service.pid as number, async () => {
      const started = performance.now();
      const answer = await fetch(`${base}/v1/accounts/${imported}/imports`, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/csv' }, body: file });
      if (answer.status !== 202) throw new Error(`POST answered ${answer.status}: ${await answer.text()}`);
      const { id } = (await answer.json()) as { id: string };
      const accepted = (performance.now() - started) / 1000;
      let last = '';
      await waitFor(async () => {
        const state = (await (await fetch(`${base}/v1/imports/${id}`, { headers: auth })).json()) as { status: string; imported: number; duplicates: number; failed: number };
        const line = `\rimport: ${state.status}, ${state.imported} imported`;
        if (line !== last) process.stdout.write((last = line));
        if (state.status === 'failed') throw new Error('the import failed');
        return state.status === 'completed';
      }, 30 * 60_000, 250);
      await waitFor(async () => (await listed(imported)) === rows, 30 * 60_000, 250);
      process.stdout.write('\n');
      console.log(`202 after ${accepted.toFixed(2)} s`);
      return (performance.now() - started) / 1000;
    });

    const raw = await newAccount('Raw');
    const rawStarted = performance.now();
    for (let done = 0; done < rows; done += 10_000) {
      await database.pool.query(
        `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
         SELECT id, 'transaction-' || id, 0, 'TransactionCreated',
                jsonb_build_object('transactionId', id, 'accountId', $2::text, 'source', 'manual',
                  'amount', CASE WHEN g % 50 = 0 THEN '2450' ELSE trim_scale(-(1 + ((g * 7919) % 25000) / 100.0))::text END,
                  'date', to_char(date '2026-11-22' - (g % 730), 'YYYY-MM-DD'), 'name', 'MERCHANT ' || (g % 997) || ', STORE #' || g,
                  'merchantName', NULL, 'categoryId', NULL, 'notes', CASE WHEN g % 10 = 0 THEN 'card purchase' END,
                  'pending', false, 'paymentChannel', NULL, 'location', NULL, 'tagIds', '[]'::jsonb, 'authorizedDate', NULL),
                jsonb_build_object('userId', $1::text, 'actor', 'system', 'requestId', 'bench-raw', 'causationId', 'bench-raw', 'correlationId', 'bench-raw',
                  'schemaVersion', 1, 'occurredAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           FROM (SELECT gen_random_uuid() AS id, g FROM generate_series($3::int, $3::int + $4::int - 1) AS g) AS rows`,
        [userId, raw, done, Math.min(10_000, rows - done)],
      );
    }
    await waitFor(async () => (await listed(raw)) === rows, 30 * 60_000, 250);
    const rawSeconds = (performance.now() - rawStarted) / 1000;
    await database.close();

    console.log(`\nfile in → every row listed: ${importSeconds.toFixed(1)} s (${Math.round(rows / importSeconds)} rows/s)`);
    console.log(`the same events inserted raw → every row listed: ${rawSeconds.toFixed(1)} s (${Math.round(rows / rawSeconds)} rows/s); the import takes ${(importSeconds / rawSeconds).toFixed(2)}×`);
    console.log(`service peak RSS during the import: ${peakRssMb.toFixed(0)} MB sampled, ${highWaterMarkMb.toFixed(0)} MB high-water mark since start`);
  } finally {
    await stopChildren(children);
    await scratch.drop();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
