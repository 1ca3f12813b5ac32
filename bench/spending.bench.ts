import 'reflect-metadata';
import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { PROJECTIONS } from '../projections/index.js';
import { systemClock } from '../src/core/clock.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../src/infrastructure/projections/projection.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { GetSpending, GetSpendingHandler, type SpendingFilter } from '../src/modules/insights/spending/spending.queries.js';
import { type LoadFigures, rawLoad } from './support/raw-load.js';
import { type RecordedStatement, recordStatements, replayStatements } from './support/recorded-sql.js';
import { createScratchDatabase, rssMb, stopService, waitFor } from './support/service-process.js';
import { independentSpendingTotal, type ListedCategories, seedSpendingHistory, spendingCategoriesOf } from './support/spending-history.js';

/**
 * npm run bench:spending [-- --transactions 1000000 --duration 10 --connections 32] [--quick] [--explain]
 * Seeds one user with two years of transactions over a checking, a savings and a card account,
 * lets the built service project them, checks each operation's totalSpending against an
 * independent SQL sum, then measures GET /spending over HTTP beside the handler's own SQL
 * (recorded from the handler, replayed with pg) at the same concurrency in the same run.
 */
const { values } = parseArgs({
  options: {
    transactions: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '32' },
    quick: { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
  },
});
const transactions = Number(values.transactions ?? (values.quick ? '20000' : '100000'));
const duration = Number(values.duration ?? (values.quick ? '3' : '10'));
const warmup = values.quick ? 1 : 2;
const connections = Number(values.connections);
const port = 39_530;
const base = `http://127.0.0.1:${port}`;

interface Operation {
  readonly path: string;
  readonly filter: SpendingFilter & { period: '1m' | '1y' | 'all' };
}
const OPERATIONS: Operation[] = [
  { path: '/v1/spending?period=1y', filter: { period: '1y' } },
  { path: '/v1/spending?period=all', filter: { period: 'all' } },
  { path: '/v1/spending?period=1m', filter: { period: '1m' } },
  { path: '/v1/spending/credit?period=1y', filter: { period: '1y', accountType: 'credit_card' } },
];

interface Figures extends LoadFigures {
  max: number;
}

async function main(): Promise<void> {
  const scratch = await createScratchDatabase('ledgerline_bench_spending');
  let service: ChildProcess | null = null;
  const database = connectDatabase(scratch.url, { max: connections + 2, searchPath: readModelSearchPath(PROJECTIONS) });
  const pool = database.pool;
  try {
    // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" profiles the service under load.
    const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    service = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], { env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(port), LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' }, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);
    const { user } = await ensureUser(database.db, 'bench@example.com');
    const key = (await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const createAccount = async (body: object) => ((await (await fetch(`${base}/v1/accounts`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json()) as { id: string }).id;
    const accounts = {
      checking: await createAccount({ name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 0 }),
      savings: await createAccount({ name: 'Savings', type: 'bank', subtype: 'savings', currentBalance: 0 }),
      card: await createAccount({ name: 'Card', type: 'credit_card', subtype: 'credit card', currentBalance: 0, creditLimit: 10_000 }),
    };

    const seedStarted = Date.now();
    // The categories come from GET /categories: the system taxonomy is every user's from the start.
    const categories = spendingCategoriesOf((await (await fetch(`${base}/v1/categories`, { headers: auth })).json()) as ListedCategories);
    await seedSpendingHistory(pool, user.id, accounts, categories, transactions, (done) => process.stdout.write(`\rseeding ${done}/${transactions} events`));
    // A bulk load outruns autovacuum: without statistics the planner may scan the whole log per read.
    await pool.query('ANALYZE events');
    await waitFor(async () => {
      const { behind, spending, head } = await projectionsBehind(pool);
      process.stdout.write(`\rspending at event ${spending} of ${head}; read models behind: ${behind.join(', ') || 'none'}          `);
      return behind.length === 0;
    }, 60 * 60_000);
    console.log(`\nseeded ${transactions} transactions and every read model reached the head in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
    // Fresh bulk data: give the planner its statistics now rather than whenever autovacuum wakes.
    await pool.query('ANALYZE');

    const statements = new Map<Operation, RecordedStatement[]>();
    for (const operation of OPERATIONS) {
      const body = (await (await fetch(`${base}${operation.path}`, { headers: auth })).json()) as { totalSpending: number };
      const expected = await independentSpendingTotal(pool, user.id, operation.filter.period, operation.filter.accountType ?? null);
      if (Math.round(body.totalSpending * 10_000) !== Math.round(Number(expected) * 10_000)) {
        throw new Error(`${operation.path}: totalSpending ${body.totalSpending}, the independent SQL sum says ${expected}`);
      }
      console.log(`${operation.path}: totalSpending ${body.totalSpending} equals the independent SQL sum`);
      statements.set(operation, await recordStatements(pool, (db) => new GetSpendingHandler(db, systemClock).execute(new GetSpending(user.id, operation.filter))));
    }

    const loadBefore = loadavg();
    const floors: Array<[string, Figures, number]> = [];
    for (const [label, path, headers] of [['GET /health (public, 3 small queries)', '/health', {}], ['GET /v1/me (API key + one read)', '/v1/me', auth]] as const) {
      floors.push([label, await cannon(path, headers), rssMb(service)]);
    }
    const results: Array<[Operation, Figures, number, Figures]> = [];
    for (const operation of OPERATIONS) {
      const http = await cannon(operation.path, auth);
      results.push([operation, http, rssMb(service), await raw(pool, statements.get(operation) ?? [])]);
    }
    const loadAfter = loadavg();

    console.log(`\n${transactions} transactions, ${connections} connections, ${duration} s per run after a ${warmup} s warm-up, load generator and PostgreSQL on the same cores`);
    console.log(`load average (1/5/15 min) before measuring ${loadBefore.map((load) => load.toFixed(2)).join(' ')}, after ${loadAfter.map((load) => load.toFixed(2)).join(' ')}`);
    console.log('operation'.padEnd(40) + 'HTTP req/s  p50 ms  p99 ms  max ms  RSS MB  |  handler SQL on pg: ops/s  p50 ms  p99 ms  max ms  statements');
    for (const [label, http, rss] of floors) console.log(label.padEnd(40) + httpColumns(http, rss) + '  |');
    for (const [operation, http, rss, reference] of results) {
      const count = statements.get(operation)?.length ?? 0;
      console.log(operation.path.padEnd(40) + httpColumns(http, rss) + `  |  ${reference.requestsPerSecond.toFixed(0).padStart(23)} ${ms(reference.p50)} ${ms(reference.p99)} ${ms(reference.max)} ${String(count).padStart(11)}`);
    }
    if (values.explain) await diagnose(scratch.url, pool, statements);
  } finally {
    await stopService(service);
    await database.close();
    await scratch.drop();
  }
}

function ms(value: number): string {
  return value.toFixed(1).padStart(7);
}

function httpColumns(http: Figures, rss: number): string {
  return `${http.requestsPerSecond.toFixed(0).padStart(10)} ${ms(http.p50)} ${ms(http.p99)} ${ms(http.max)} ${rss.toFixed(0).padStart(7)}`;
}

async function cannon(path: string, headers: Record<string, string>): Promise<Figures> {
  await autocannon({ url: `${base}${path}`, connections, duration: warmup, headers });
  const result = await autocannon({ url: `${base}${path}`, connections, duration, headers });
  if (result.non2xx > 0 || result.errors > 0) console.warn(`\nGET ${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, count: result.requests.total };
}

/**
 * The handler's statements, one after another as it awaits them, from `connections` loops, after a
 * warm-up that also opens the pool's connections. The PostgreSQL server is shared with other work:
 * a run refused for want of connections (53300) is tried again, a few times, rather than lost.
 */
async function raw(pool: pg.Pool, statements: readonly RecordedStatement[]): Promise<Figures> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await rawLoad(connections, warmup * 1000, () => replayStatements(pool, statements));
      return await rawRun(pool, statements);
    } catch (error) {
      if ((error as { code?: string }).code !== '53300' || attempt === 5) throw error;
      console.warn(`\nPostgreSQL refused a connection (too many clients); trying again in 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
  }
}

async function rawRun(pool: pg.Pool, statements: readonly RecordedStatement[]): Promise<Figures> {
  let max = 0;
  const figures = await rawLoad(connections, duration * 1000, async () => {
    const begin = performance.now();
    await replayStatements(pool, statements);
    max = Math.max(max, performance.now() - begin);
  });
  return { ...figures, max };
}

/** This release's read models not yet at the head of the event log, and where `spending` is. */
async function projectionsBehind(pool: pg.Pool): Promise<{ behind: string[]; spending: string; head: string }> {
  const head = (await pool.query<{ commit: string; prepare: string }>('SELECT transaction_id::text AS commit, global_position::text AS prepare FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1')).rows[0];
  const { rows } = await pool.query<{ name: string; version: number; commit: string; prepare: string }>('SELECT name, version, position_commit::text AS commit, position_prepare::text AS prepare FROM projection_versions');
  const at = (row: { commit: string; prepare: string } | undefined) => (row ? BigInt(row.commit) * 2n ** 64n + BigInt(row.prepare) : -1n);
  const behind = PROJECTIONS.filter((projection) => at(rows.find((row) => row.name === projection.name && row.version === projection.version)) < at(head)).map((projection) => projection.name);
  const spending = rows.find((row) => row.name === 'spending' && row.version === PROJECTIONS.find((projection) => projection.name === 'spending')?.version);
  return { behind, spending: spending?.prepare ?? '0', head: head?.prepare ?? '0' };
}

/**
 * --explain: the plan of each operation's last statement (the sums) as PostgreSQL runs it now, the
 * aggregate tables' dead rows, and the handler's SQL again with parallel query off, then after a
 * VACUUM of the aggregate tables: what the reference would be without either cost.
 */
async function diagnose(url: string, pool: pg.Pool, statements: Map<Operation, RecordedStatement[]>): Promise<void> {
  for (const [operation, recorded] of statements) {
    const last = recorded[recorded.length - 1];
    const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${last.sql}`, last.parameters as unknown[]);
    console.log(`\n${operation.path}: ${last.sql.replace(/\s+/g, ' ').slice(0, 160)}…`);
    // Long id lists (the not-spending categories) say nothing about the plan: only their length is kept.
    for (const row of plan.rows) console.log(`  ${row['QUERY PLAN'].replace(/'\{([0-9a-f-]{36},){3,}[0-9a-f-]{36}\}'/g, (list) => `'{${list.split(',').length} ids}'`)}`);
  }
  const tuples = async () =>
    (await pool.query<{ relname: string; live: string; dead: string }>(`SELECT relname, n_live_tup::text AS live, n_dead_tup::text AS dead FROM pg_stat_user_tables WHERE relname IN ('spending_daily', 'spending_monthly') ORDER BY relname`)).rows
      .map((row) => `${row.relname} ${row.live} live / ${row.dead} dead rows`)
      .join(', ');
  const serial = new pg.Pool({ connectionString: url, max: connections + 2, options: `-c search_path=${readModelSearchPath(PROJECTIONS).join(',')} -c max_parallel_workers_per_gather=0` });
  serial.on('error', () => undefined);
  try {
    const measure = async (label: string) => {
      console.log(`\n${label}; load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
      for (const [operation, recorded] of statements) {
        const figures = await raw(serial, recorded);
        console.log(`${operation.path.padEnd(40)}${figures.requestsPerSecond.toFixed(0).padStart(10)} ${ms(figures.p50)} ${ms(figures.p99)} ${ms(figures.max)}`);
      }
    };
    await measure(`handler SQL on pg, max_parallel_workers_per_gather = 0 (${await tuples()}): ops/s, p50, p99, max ms`);
    await pool.query('VACUUM spending_daily, spending_monthly');
    await measure(`the same after VACUUM (${await tuples()})`);
  } finally {
    await serial.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
