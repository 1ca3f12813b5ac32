import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { connectDatabase, type DatabaseConnection } from '../src/infrastructure/database/database.js';
import { CachedApiKeys } from '../src/modules/identity/api-key-cache/cached-api-keys.js';
import { authenticateApiKey } from '../src/modules/identity/identity.store.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { cpuSeconds, createScratchDatabase, rssMb, stopService, waitFor } from './support/service-process.js';

/**
 * API-key authentication from the in-process cache (docs/decisions/0023) against a read of
 * api_keys per request: two services on one scratch database, one with the cache (the default)
 * and one with API_KEY_CACHE_SIZE=0, loaded in alternating rounds with GET /v1/accounts (a user
 * with three accounts) at 32 connections. Prints req/s, latency, the service's CPU and the
 * database's committed transactions per request for each round, and the load average of the
 * machine; then one key authenticated 2,000 times in a row in this process, cached and not. `npm run bench:auth`;
 * BENCH_DATABASE_URL names an admin connection (a scratch database is created and dropped).
 */
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);

interface Service {
  readonly label: string;
  readonly base: string;
  readonly child: ChildProcess;
}

interface Round {
  readonly label: string;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpuMsPerRequest: number;
  readonly transactionsPerRequest: number;
  readonly failures: number;
}

function startService(label: string, port: number, databaseUrl: string, env: Record<string, string>): Service {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { label, base: `http://127.0.0.1:${port}`, child };
}

/** Transactions committed in this database so far (backends report them within about a second). */
async function committed(database: DatabaseConnection): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const { rows } = await database.pool.query<{ commits: string }>('SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0]?.commits);
}

async function load(service: Service, key: string, database: DatabaseConnection): Promise<Round> {
  const commitsBefore = await committed(database);
  const cpuBefore = cpuSeconds(service.child);
  const result = await autocannon({ url: `${service.base}/v1/accounts`, connections, duration, headers: { Authorization: `Bearer ${key}` } });
  const cpu = cpuSeconds(service.child) - cpuBefore;
  const commits = (await committed(database)) - commitsBefore;
  return {
    label: service.label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMsPerRequest: (cpu * 1000) / Math.max(1, result.requests.total),
    transactionsPerRequest: commits / Math.max(1, result.requests.total),
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

const load1 = () => loadavg()[0].toFixed(2);

async function main(): Promise<void> {
  const scratch = await createScratchDatabase('ledgerline_bench_auth');
  const database = connectDatabase(scratch.url, { max: 2 });
  // The first service migrates; the second starts once it is up, so they do not race the migration lock for nothing.
  const cached = startService('cache on', 39_610, scratch.url, { API_KEY_CACHE_SIZE: '10000' });
  let uncached: Service | null = null;
  try {
    await waitFor(async () => (await fetch(`${cached.base}/health`).catch(() => null))?.ok === true, 60_000);
    uncached = startService('cache off (API_KEY_CACHE_SIZE=0)', 39_611, scratch.url, { API_KEY_CACHE_SIZE: '0' });
    await waitFor(async () => (await fetch(`${(uncached as Service).base}/health`).catch(() => null))?.ok === true, 60_000);
    const { user } = await ensureUser(database.db, 'bench@example.com');
    const key = (await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key;
    for (const name of ['Checking', 'Savings', 'Card']) {
      const created = await fetch(`${cached.base}/v1/accounts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, type: 'bank', subtype: 'checking', currentBalance: 100 }),
      });
      if (created.status !== 201) throw new Error(`POST /v1/accounts answered ${created.status}: ${await created.text()}`);
    }
    for (const service of [cached, uncached]) {
      const listed = (await (await fetch(`${service.base}/v1/accounts`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { accounts: unknown[] };
      if (listed.accounts.length !== 3) throw new Error(`${service.label} lists ${listed.accounts.length} accounts, not 3`);
    }
    // Warm both (JIT, pools), unmeasured.
    for (const service of [cached, uncached]) await autocannon({ url: `${service.base}/v1/accounts`, connections, duration: 3, headers: { Authorization: `Bearer ${key}` } });

    console.log(`GET /v1/accounts, ${connections} connections, ${duration} s per round, ${rounds} alternating rounds; load average before: ${load1()}`);
    const results: Round[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? [cached, uncached] : [uncached, cached];
      for (const service of order) {
        const figures = await load(service, key, database);
        results.push(figures);
        console.log(
          `  round ${round + 1} ${figures.label.padEnd(34)} ${figures.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${figures.p50} ms  p99 ${figures.p99} ms  ` +
            `service CPU ${figures.cpuMsPerRequest.toFixed(3)} ms/request  ${figures.transactionsPerRequest.toFixed(2)} db transactions/request  failures ${figures.failures}  (load average ${load1()})`,
        );
      }
    }
    const median = (label: string, pick: (round: Round) => number) => {
      const sorted = results.filter((round) => round.label === label).map(pick).sort((a, b) => a - b);
      return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    };
    const on = { rps: median(cached.label, (r) => r.requestsPerSecond), p99: median(cached.label, (r) => r.p99), cpu: median(cached.label, (r) => r.cpuMsPerRequest) };
    const off = { rps: median(uncached.label, (r) => r.requestsPerSecond), p99: median(uncached.label, (r) => r.p99), cpu: median(uncached.label, (r) => r.cpuMsPerRequest) };
    const onTx = median(cached.label, (r) => r.transactionsPerRequest);
    const offTx = median(uncached.label, (r) => r.transactionsPerRequest);
    console.log('\n| GET /v1/accounts (median of rounds) | req/s | p99 ms | service CPU ms/request | db transactions/request |');
    console.log('|---|---|---|---|---|');
    console.log(`| ${cached.label} | ${on.rps.toFixed(0)} | ${on.p99} | ${on.cpu.toFixed(3)} | ${onTx.toFixed(2)} |`);
    console.log(`| ${uncached.label} | ${off.rps.toFixed(0)} | ${off.p99} | ${off.cpu.toFixed(3)} | ${offTx.toFixed(2)} |`);
    console.log(`| ratio on/off | ${(on.rps / off.rps).toFixed(2)}× | | ${(on.cpu / off.cpu).toFixed(2)}× | |`);
    await authenticateInARow(database, key);
    console.log(`RSS: cache on ${rssMb(cached.child).toFixed(0)} MB, cache off ${rssMb(uncached.child).toFixed(0)} MB; load average after: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
    if (results.some((round) => round.failures > 0)) throw new Error('some requests failed');
  } finally {
    await stopService(cached.child);
    await stopService(uncached?.child ?? null);
    await database.close();
    await scratch.drop();
  }
}

/** One key, 2,000 times in a row, in this process: the cache's hit against the database read it replaces. */
async function authenticateInARow(database: DatabaseConnection, key: string): Promise<void> {
  const times = 2_000;
  const keys = new CachedApiKeys(database.db, database.pool, { limits: { maxEntries: 10, ttlMs: 60_000 } });
  await keys.start();
  try {
    await waitFor(async () => keys.invalidations.trusted(), 10_000, 10);
    const timeIt = async (authenticate: () => Promise<unknown>) => {
      const started = performance.now();
      for (let i = 0; i < times; i += 1) if (!(await authenticate())) throw new Error('the key was refused');
      return ((performance.now() - started) * 1000) / times;
    };
    const fromDatabase = await timeIt(() => authenticateApiKey(database.db, key));
    const fromCache = await timeIt(() => keys.authenticate(key));
    console.log(`one key authenticated ${times} times in a row: from the database ${fromDatabase.toFixed(1)} µs, from the cache ${fromCache.toFixed(1)} µs (load average ${load1()})`);
  } finally {
    await keys.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
