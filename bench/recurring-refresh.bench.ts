import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { CheckpointWatch } from '../src/infrastructure/projections/checkpoint-watch.js';
import { detectRecurringStreams } from '../src/modules/insights/recurring/index.js';
import { refreshRecurringStreams } from '../src/modules/insights/recurring/refresh/recurring-refresh.job.js';
import { generateSandboxHistory } from '../src/modules/link/sandbox-bank/index.js';
import { DEFAULT_AS_OF, toRecurringTransaction } from './recurring-accuracy.js';
import { openScratchLedger } from './support/scratch-ledger.js';

/**
 * The recurring refresh for one user with 100k transactions, beside the engine's pure run on the
 * same transactions in the same process (the reference). The transactions go straight into the
 * transactions read model (how they got there is the projections' cost, not the refresh's), so
 * the refresh measured is: read them, detect, record what changed. Run with
 * `npm run bench:recurring-refresh`; BENCH_DATABASE_URL (or TEST_DATABASE_URL) names an admin
 * connection to a PostgreSQL server where a scratch database is created and dropped.
 */
const TRANSACTIONS = 100_000;
const RUNS = 3;
const CHUNK = 10_000;

async function main(): Promise<void> {
  const { connection, store, close } = await openScratchLedger({ storeConnections: 10 });
  try {
    const history = generateSandboxHistory({ seed: 1, asOf: DEFAULT_AS_OF, transactionCount: TRANSACTIONS });
    const transactions = history.transactions.map(toRecurringTransaction);
    const userId = randomUUID();
    const accountIds = new Map([...new Set(transactions.map((transaction) => transaction.accountId))].map((id) => [id, randomUUID()]));
    const now = new Date(`${DEFAULT_AS_OF}T12:00:00.000Z`);
    for (const [, id] of accountIds) {
      await connection.db.insertInto('accounts').values({ id, user_id: userId, source: 'bank_link', name: 'Bench', type: 'depository', subtype: 'checking', mask: null, currency: 'USD', institution_name: null, current: null, credit_limit: null, user_override_credit_limit: null, created_at: now, updated_at: now, deleted_at: null, revision: 0, link_item_uuid: null, link_item_id: null, link_account_id: null, official_name: null, institution_id: null, institution_logo: null, institution_url: null, available: null, billed_products: null, needs_reauth: false, new_accounts_available: false, pending_disconnect_at: null, account_revision: -1, brokerage_authorization_uuid: null, brokerage_authorization_id: null, brokerage_account_id: null }).execute();
    }
    const rows = transactions.map((transaction) => ({ id: randomUUID(), account_id: accountIds.get(transaction.accountId), amount: transaction.amount, date: transaction.date, name: transaction.name, merchant_name: transaction.merchantName, counterparties: transaction.counterparties, pending: transaction.pending }));
    for (let done = 0; done < rows.length; done += CHUNK) {
      await sql`
        INSERT INTO transactions (id, user_id, account_id, source, amount, date, name, merchant_name, pending, counterparties, created_at, updated_at, revision)
        SELECT r.id, ${userId}::uuid, r.account_id, 'bank_link', r.amount, r.date, r.name, r.merchant_name, r.pending, r.counterparties, now(), now(), 0
          FROM jsonb_to_recordset(${JSON.stringify(rows.slice(done, done + CHUNK))}::jsonb)
            AS r(id uuid, account_id uuid, amount numeric, date date, name text, merchant_name text, pending boolean, counterparties jsonb)`.execute(connection.db);
    }
    await sql`ANALYZE transactions`.execute(connection.db);
    // The read model is written directly: there is no lag to wait out.
    const watch = { waitFor: async () => true } as unknown as CheckpointWatch;
    const dependencies = { database: connection, eventStore: store, clock: { now: () => now }, watch };

    console.log(`Recurring refresh, one user with ${rows.length} transactions (sandbox seed 1, asOf ${DEFAULT_AS_OF}), ${RUNS} runs each:`);
    const pure: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      detectRecurringStreams(transactions, { asOf: DEFAULT_AS_OF });
      pure.push(performance.now() - started);
    }
    console.log(`  engine, pure full run (reference)   ${fmt(pure)}`);
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      const outcome = await refreshRecurringStreams(dependencies, userId);
      const total = performance.now() - started;
      const { read, detect, record } = outcome.timings;
      console.log(
        `  refresh ${run === 0 ? '(first: records every stream)' : '(again: nothing changed)   '} ${total.toFixed(0).padStart(5)} ms total: read ${read.toFixed(0)} ms, detect ${detect.toFixed(0)} ms, ` +
          `record ${record.toFixed(0)} ms; ${outcome.activeStreams} active streams, ${outcome.eventsAppended} events appended`,
      );
    }
  } finally {
    await close();
  }
}

function fmt(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${(sorted[Math.floor(sorted.length / 2)] as number).toFixed(0)} ms (runs ${values.map((ms) => ms.toFixed(0)).join(', ')} ms)`;
}

await main();
