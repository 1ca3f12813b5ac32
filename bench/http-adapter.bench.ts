import { type ChildProcess, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { PROJECTIONS } from '../projections/index.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../src/infrastructure/projections/projection.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { ListTransactions, ListTransactionsHandler } from '../src/modules/transactions/transaction.queries.js';
import { benchPostgres } from './support/bench-postgres.js';
import { httpLoadSamples } from './support/http-load.js';
import { startPeerServer, startScriptNodeFlags, stopChildren } from './support/peers/peer-process.js';
import { projectionsBehind } from './support/projections-behind.js';
import { figuresOf, type LoadSamples } from './support/raw-load.js';
import { recordStatements } from './support/recorded-sql.js';
import { seedTransactionEvents } from './support/seed.js';
import { cpuSeconds, createScratchDatabase, waitFor } from './support/service-process.js';
import { describeFigures } from './support/side-by-side.js';

/**
 * npm run bench:http-adapter [-- --quick | --transactions 100000 --duration 5 --rounds 3 --connections 32
 *                              --service before=/path/to/other/dist/src/main.js --service after=dist/src/main.js]
 * The HTTP adapter's share of issue 23's read goals: a NestJS hello world on Express and on Fastify,
 * the plain NestJS + pg page reference (Express, as the goal is stated), and each given build of the
 * service (default: this one) on one seeded ledger — `GET /v1/accounts` and the first page of
 * `GET /v1/transactions`. Every target takes its turn in every round, starting one later each round,
 * so the machine's noise falls on all of them; each round's figures are printed, and the server's
 * CPU time per answer (from /proc), which another session's load changes far less than the rate.
 */
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    transactions: { type: 'string' },
    duration: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    service: { type: 'string', multiple: true },
  },
});
const transactions = Number(values.transactions ?? (values.quick ? 20_000 : 100_000));
const duration = Number(values.duration ?? 5);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const services = (values.service ?? ['this=dist/src/main.js']).map((given) => {
  const [label, path] = given.includes('=') ? [given.slice(0, given.indexOf('=')), given.slice(given.indexOf('=') + 1)] : [given, given];
  return { label, path };
});
const SERVICE_POOL_SIZE = 30;
const PAGE_SIZE = 50;
const port = 39_600;

interface Target {
  readonly name: string;
  readonly url: string;
  readonly request: autocannon.Request;
  /** The server process: its CPU time per answer holds up on a busy machine better than its rate. */
  readonly server: ChildProcess;
}

/** One turn of load on a target: the answers' latencies and the server's CPU seconds meanwhile. */
interface Turn {
  readonly samples: LoadSamples;
  readonly cpuSeconds: number;
}

async function main(): Promise<void> {
  const server = await benchPostgres(port + 50);
  const children: ChildProcess[] = [];
  const scratch = await createScratchDatabase('ledgerline_bench_adapter', server.adminUrl);
  const database = connectDatabase(scratch.url, { max: 4, searchPath: readModelSearchPath(PROJECTIONS) });
  try {
    console.log(`${services.length} build(s) of the service and the references on ${server.description}`);
    const bases: string[] = [];
    // One after the other: the first sets the database up, the others find it ready.
    for (const [index, service] of services.entries()) {
      const servicePort = port + 10 + index;
      children.push(spawn(process.execPath, [...startScriptNodeFlags(), service.path], { env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(servicePort), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' }, stdio: ['ignore', 'ignore', 'inherit'] }));
      const base = `http://127.0.0.1:${servicePort}`;
      await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);
      bases.push(base);
    }
    const { user } = await ensureUser(database.db, 'bench@example.com');
    const key = (await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${bases[0]}/v1/accounts`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench', type: 'bank', subtype: 'checking', currentBalance: 0 }) });
    if (!created.ok) throw new Error(`creating the bench account: ${created.status} ${await created.text()}`);
    const account = (await created.json()) as { id: string };
    const categoryIds = (((await (await fetch(`${bases[0]}/v1/categories`, { headers: auth })).json()) as { categories: Array<{ id: string }> }).categories).map((category) => category.id);
    await seedTransactionEvents(database.pool, user.id, account.id, categoryIds, transactions, (done) => process.stdout.write(`\rseeding ${done}/${transactions} events`));
    await database.pool.query('ANALYZE events');
    await waitFor(async () => {
      const behind = await projectionsBehind(database.pool);
      process.stdout.write(`\rwaiting for ${behind.length} projections to reach the last event`.padEnd(80));
      return behind.length === 0;
    }, 30 * 60_000, 1000);
    await database.pool.query('ANALYZE');
    console.log('');

    const pages = { first: await recordStatements(database.pool, (db) => new ListTransactionsHandler(db).execute(new ListTransactions(user.id, { accountIds: [], categoryGroups: [], limit: PAGE_SIZE }))) };
    const peersFrom = children.length;
    const [pagePeer, helloExpress, helloFastify] = await Promise.all([
      startPeerServer('plain-nest-page.server', port + 1, '/pages/first', { DATABASE_URL: scratch.url, POOL_SIZE: String(SERVICE_POOL_SIZE), PAGE_SIZE: String(PAGE_SIZE), PAGES: JSON.stringify(pages) }, children),
      startPeerServer('nest-hello.server', port + 2, '/hello', {}, children),
      startPeerServer('nest-hello-fastify.server', port + 3, '/hello', {}, children),
    ]);
    // startPeerServer adds each child before it first waits: in the order called.
    const [pageServer, helloExpressServer, helloFastifyServer] = children.slice(peersFrom);
    const targets: Target[] = [
      { name: 'NestJS hello world, Express', url: helloExpress, request: { method: 'GET', path: '/hello' }, server: helloExpressServer },
      { name: 'NestJS hello world, Fastify', url: helloFastify, request: { method: 'GET', path: '/hello' }, server: helloFastifyServer },
      { name: 'plain NestJS (Express) + pg, first page', url: pagePeer, request: { method: 'GET', path: '/pages/first' }, server: pageServer },
      ...services.flatMap((service, index): Target[] => [
        { name: `${service.label}: GET /v1/accounts`, url: bases[index], request: { method: 'GET', headers: auth, path: '/v1/accounts' }, server: children[index] },
        { name: `${service.label}: GET /v1/transactions`, url: bases[index], request: { method: 'GET', headers: auth, path: '/v1/transactions' }, server: children[index] },
      ]),
    ];
    for (const target of targets) await httpLoadSamples(target.url, target.request, connections, values.quick ? 1 : 2);
    const turns = new Map<string, Turn[]>(targets.map((target) => [target.name, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (let turn = 0; turn < targets.length; turn += 1) {
        const target = targets[(round + turn) % targets.length];
        process.stdout.write(`\rround ${round + 1}/${rounds}: ${target.name}`.padEnd(100));
        const cpuBefore = cpuSeconds(target.server);
        const run = await httpLoadSamples(target.url, target.request, connections, duration);
        turns.get(target.name)?.push({ samples: run, cpuSeconds: cpuSeconds(target.server) - cpuBefore });
      }
    }
    const samples = new Map([...turns].map(([name, runs]) => [name, runs.map((run) => run.samples)]));
    const cpuPerAnswer = (runs: readonly Turn[]) => (1e6 * runs.reduce((sum, run) => sum + run.cpuSeconds, 0)) / Math.max(1, runs.reduce((sum, run) => sum + run.samples.latencies.length, 0));
    console.log(`\n\n${transactions} transactions, ${connections} connections, ${rounds} rounds of ${duration} s per target (each round starting one target later), load generator on the same machine\n`);
    console.log(`| Target | ${Array.from({ length: rounds }, (_, round) => `round ${round + 1}`).join(' | ')} | all rounds | server CPU per answer |`);
    console.log(`|---|${'---|'.repeat(rounds)}---|---|`);
    const all = (name: string) => figuresOf(samples.get(name) ?? []);
    for (const target of targets) {
      const perRound = (samples.get(target.name) ?? []).map((run) => `${Math.round(figuresOf([run]).requestsPerSecond).toLocaleString('en-US')}/s`);
      console.log(`| ${target.name} | ${perRound.join(' | ')} | ${describeFigures(all(target.name))} | ${Math.round(cpuPerAnswer(turns.get(target.name) ?? []))} µs |`);
    }
    const ratio = (numerator: string, denominator: string) => (all(numerator).requestsPerSecond / all(denominator).requestsPerSecond).toFixed(2);
    const perRoundRatios = (numerator: string, denominator: string) =>
      (samples.get(numerator) ?? []).map((run, round) => (figuresOf([run]).requestsPerSecond / figuresOf([(samples.get(denominator) ?? [])[round]]).requestsPerSecond).toFixed(2)).join(', ');
    console.log(`\nFastify hello / Express hello: ${ratio(targets[1].name, targets[0].name)}× (rounds: ${perRoundRatios(targets[1].name, targets[0].name)})`);
    for (const service of services) {
      console.log(`${service.label}: GET /v1/accounts / Express hello ${ratio(`${service.label}: GET /v1/accounts`, targets[0].name)}× (rounds: ${perRoundRatios(`${service.label}: GET /v1/accounts`, targets[0].name)}; goal ≥ 0.6×)`);
      console.log(`${service.label}: GET /v1/transactions / plain page ${ratio(`${service.label}: GET /v1/transactions`, targets[2].name)}× (rounds: ${perRoundRatios(`${service.label}: GET /v1/transactions`, targets[2].name)}; goal ≥ 2.0×)`);
    }
  } finally {
    await stopChildren(children);
    await database.close();
    await scratch.drop();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
