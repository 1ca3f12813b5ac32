import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { formatIsoDate, parseIsoDate } from '../src/core/calendar-day.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { migrate } from '../src/infrastructure/database/migrate.js';
import { createPersistentSandboxBank } from '../src/modules/link/provider/persistent-sandbox-bank.js';
import { createSandboxBank, generateSandboxHistory } from '../src/modules/link/sandbox-bank/index.js';
import { generateSandboxLedger } from '../src/modules/link/sandbox-bank/sandbox-history.generator.js';
import { buildSyncLog } from '../src/modules/link/sandbox-bank/sandbox-sync-log.js';

/**
 * npm run bench:sandbox — how long the sandbox bank takes to generate 100,000 transactions, and
 * what a 100,000-transaction item that lives on for 400 days costs: generation, memory, and each
 * page of its first sync. Memory figures are exact with `node --expose-gc`, rough without; with
 * BENCH_DATABASE_URL, the persistent adapter's pages too.
 */
const AS_OF = '2026-11-20';
const HORIZON_DAYS = 400;
/** The link flow's user: public tokens are exchanged by the user they were made for. */
const BENCH_USER = 'bench-user';
const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = (): number => {
  gc?.();
  return process.memoryUsage().heapUsed / 1048576;
};
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const percentile = (values: readonly number[], p: number): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * p)] as number;
const msSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e6;

const runs: number[] = [];
for (let run = 0; run < 7; run += 1) {
  const started = process.hrtime.bigint();
  const history = generateSandboxHistory({ seed: 42 + run, asOf: AS_OF, transactionCount: 100_000 });
  runs.push(msSince(started));
  if (run === 0) console.log(`${history.transactions.length} transactions, ${history.plantedStreams.length} planted streams, ${history.accounts.length} accounts`);
}
console.log(`generation of 100,000 transactions: median ${median(runs).toFixed(0)} ms (runs ${runs.map((ms) => ms.toFixed(0)).join(', ')} ms; the first is cold)`);

// An item of 100,000 transactions on its link day that lives on for the horizon.
const ledgerMs: number[] = [];
const logMs: number[] = [];
let retainedMb = 0;
for (let run = 0; run < 5; run += 1) {
  const before = run === 0 ? heapMb() : 0;
  let started = process.hrtime.bigint();
  const ledger = generateSandboxLedger({ seed: 9 + run, asOf: AS_OF, transactionCount: 100_000, horizonDays: HORIZON_DAYS });
  ledgerMs.push(msSince(started));
  started = process.hrtime.bigint();
  const log = buildSyncLog(ledger);
  logMs.push(msSince(started));
  if (run > 0) continue;
  // Measured once, on the first item, while both are still in use.
  retainedMb = heapMb() - before;
  console.log(`item living on: ${ledger.draft.drafts.length} planned transactions over ${HORIZON_DAYS} days after asOf, sync log of ${log.length} changes`);
}
console.log(
  `  ledger ${median(ledgerMs).toFixed(0)} ms, sync log ${median(logMs).toFixed(0)} ms (medians of ${ledgerMs.length}); ` +
    `ledger and log retain ${retainedMb.toFixed(0)} MB${gc ? '' : ' (rough: run with node --expose-gc)'}`,
);

let at = Date.parse(`${AS_OF}T12:00:00.000Z`);
const bank = createSandboxBank({ seed: 9, asOf: AS_OF, horizonDays: HORIZON_DAYS, clock: { now: () => new Date(at) } });
let started = process.hrtime.bigint();
const item = await bank.exchangePublicToken({ publicToken: bank.createPublicToken({ userId: BENCH_USER, transactionCount: 100_000 }), userId: BENCH_USER });
const exchangeMs = msSince(started);
const pageMs: number[] = [];
let cursor: string | undefined;
for (;;) {
  started = process.hrtime.bigint();
  const page = await bank.syncTransactions({ accessToken: item.accessToken, cursor, count: 500 });
  pageMs.push(msSince(started));
  cursor = page.nextCursor;
  if (!page.hasMore) break;
}
console.log(
  `  exchange (generation) ${exchangeMs.toFixed(0)} ms; first sync ${pageMs.length} pages of 500: first (builds the log) ${pageMs[0]!.toFixed(0)} ms, ` +
    `then median ${median(pageMs.slice(1)).toFixed(2)} ms, p95 ${percentile(pageMs.slice(1), 0.95).toFixed(2)} ms`,
);
at += 30 * 86_400_000;
started = process.hrtime.bigint();
const accounts = await bank.getAccounts(item.accessToken);
const accountsMs = msSince(started);
started = process.hrtime.bigint();
const later = await bank.syncTransactions({ accessToken: item.accessToken, cursor, count: 500 });
console.log(
  `  30 days later: getAccounts ${accountsMs.toFixed(1)} ms (${accounts.length} accounts), next page ${msSince(started).toFixed(2)} ms ` +
    `(${later.added.length} added, ${later.modified.length} modified, ${later.removed.length} removed)`,
);
started = process.hrtime.bigint();
const history = bank.itemHistory(item.itemId);
console.log(`  itemHistory on ${formatIsoDate(parseIsoDate(AS_OF) + 30)}: ${history.transactions.length} transactions in ${msSince(started).toFixed(0)} ms`);

/**
 * With BENCH_DATABASE_URL (a PostgreSQL URL allowed to create databases), the same item through
 * the persistent adapter in a scratch database: linked on one instance, synced by another.
 */
const adminUrl = process.env.BENCH_DATABASE_URL;
if (adminUrl !== undefined) {
  const database = `ledgerline_sandbox_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const connection = connectDatabase(url.toString(), { max: 4 });
  try {
    await migrate(connection.db, []);
    const clock = { now: () => new Date(Date.parse(`${AS_OF}T12:00:00.000Z`)) };
    const webhookSecret = randomBytes(32);
    const linking = createPersistentSandboxBank(connection.db, { clock, webhookSecret });
    const syncing = createPersistentSandboxBank(connection.db, { clock, webhookSecret });
    let begun = process.hrtime.bigint();
    const linked = await linking.exchangePublicToken({ publicToken: await linking.createPublicToken({ userId: BENCH_USER, transactionCount: 100_000 }), userId: BENCH_USER });
    const linkMs = msSince(begun);
    const persistentPageMs: number[] = [];
    let next: string | undefined;
    for (;;) {
      begun = process.hrtime.bigint();
      const page = await syncing.syncTransactions({ accessToken: linked.accessToken, cursor: next, count: 500 });
      persistentPageMs.push(msSince(begun));
      next = page.nextCursor;
      if (!page.hasMore) break;
    }
    console.log(
      `persistent adapter: exchange ${linkMs.toFixed(0)} ms; first sync on another instance ${persistentPageMs.length} pages: first (generates the item) ${persistentPageMs[0]!.toFixed(0)} ms, ` +
        `then median ${median(persistentPageMs.slice(1)).toFixed(2)} ms, p95 ${percentile(persistentPageMs.slice(1), 0.95).toFixed(2)} ms (item row read included)`,
    );
  } finally {
    await connection.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}
