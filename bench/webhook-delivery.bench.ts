import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { PROJECTIONS } from '../projections/index.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../src/infrastructure/projections/projection.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { benchPostgres } from './support/bench-postgres.js';
import { createScratchDatabase, stopService, waitFor } from './support/service-process.js';

/**
 * npm run bench:webhooks [-- --rate 200 --duration 20 --users 20]
 * Delivery lag of outbound webhooks: the built service and a local receiver (node:http on
 * 127.0.0.1); `users` users, each with one endpoint, create transactions through the API at `rate`
 * a second in all for `duration` seconds. The lag of a webhook is from its event's occurredAt
 * (the body's createdAt) to its arrival at the receiver; printed as p50/p99/max, with how many
 * arrived and how long the last one took after the load stopped.
 */
const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '200' },
    duration: { type: 'string', default: '20' },
    users: { type: 'string', default: '20' },
  },
});
const rate = Number(values.rate);
const durationS = Number(values.duration);
const userCount = Number(values.users);
const port = 39_700;

interface Arrival {
  readonly lagMs: number;
}

async function main(): Promise<void> {
  const server = await benchPostgres(port + 10);
  const scratch = await createScratchDatabase('ledgerline_webhooks', server.adminUrl);
  const database = connectDatabase(scratch.url, { max: 4, searchPath: readModelSearchPath(PROJECTIONS) });
  const arrivals: Arrival[] = [];
  const seen = new Set<string>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; createdAt: string };
      if (!seen.has(body.id)) {
        seen.add(body.id);
        arrivals.push({ lagMs: Date.now() - Date.parse(body.createdAt) });
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  let service: ChildProcess | null = null;
  try {
    console.log(`on ${server.description}`);
    const base = `http://127.0.0.1:${port}`;
    // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service, as npm run bench does.
    service = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/src/main.js'], {
      env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
      stdio: ['ignore', openSync(`${tmpdir()}/ledgerline-webhooks-service.log`, 'w'), 'inherit'],
    });
    await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);

    const users: Array<{ headers: Record<string, string>; accountId: string }> = [];
    for (let i = 0; i < userCount; i += 1) {
      const { user } = await ensureUser(database.db, `webhooks-${i}@example.com`);
      const headers = { Authorization: `Bearer ${(await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key}`, 'Content-Type': 'application/json' };
      const account = (await (await fetch(`${base}/v1/accounts`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench', type: 'bank', subtype: 'checking', currentBalance: 0 }) })).json()) as { id: string };
      const endpoint = await fetch(`${base}/v1/webhooks/endpoints`, { method: 'POST', headers, body: JSON.stringify({ url: receiverUrl, eventTypes: ['transaction.created'] }) });
      if (endpoint.status !== 201) throw new Error(`creating an endpoint answered ${endpoint.status}: ${await endpoint.text()}`);
      users.push({ headers, accountId: account.id });
    }

    console.log(`${userCount} users with an endpoint each; creating ${rate} transactions/s for ${durationS} s`);
    let created = 0;
    let refused = 0;
    const inFlight = new Set<Promise<void>>();
    const started = performance.now();
    for (let n = 0; performance.now() - started < durationS * 1000; n += 1) {
      const due = started + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const user = users[n % users.length] as (typeof users)[number];
      const write = fetch(`${base}/v1/transactions`, { method: 'POST', headers: user.headers, body: JSON.stringify({ accountId: user.accountId, amount: -1, date: '2026-11-20', name: `Bench ${n}` }) })
        .then(async (response) => {
          await response.arrayBuffer();
          if (response.status === 201) created += 1;
          else refused += 1;
        })
        .catch(() => {
          refused += 1;
        })
        .finally(() => inFlight.delete(write));
      inFlight.add(write);
    }
    await Promise.all(inFlight);
    const loadEnded = performance.now();
    await waitFor(async () => arrivals.length >= created, 120_000, 100).catch(() => undefined);
    const drainedMs = performance.now() - loadEnded;

    const lags = arrivals.map((arrival) => arrival.lagMs).sort((a, b) => a - b);
    const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN;
    console.log(
      [
        `transactions created: ${created} (${(created / durationS).toFixed(0)}/s), refused or failed: ${refused}`,
        `webhooks received: ${arrivals.length} of ${created}; the last ${(drainedMs / 1000).toFixed(1)} s after the load stopped`,
        `delivery lag (occurredAt → receiver): p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${(lags[lags.length - 1] ?? NaN).toFixed(0)} ms`,
      ].join('\n'),
    );
    // Where the lag is: until the reaction recorded the delivery (the feed, the daemon), then until it was sent.
    const { rows } = await database.pool.query<{ recorded_p50: number; recorded_p99: number; sent_p50: number; sent_p99: number }>(`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM created_at - occurred_at)) * 1000 AS recorded_p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM created_at - occurred_at)) * 1000 AS recorded_p99,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - created_at)) * 1000 AS sent_p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - created_at)) * 1000 AS sent_p99
        FROM webhook_deliveries WHERE status = 'succeeded'`);
    const split = rows[0];
    if (split) console.log(`of which event → delivery recorded by the reaction: p50 ${Number(split.recorded_p50).toFixed(0)} ms, p99 ${Number(split.recorded_p99).toFixed(0)} ms; recorded → sent: p50 ${Number(split.sent_p50).toFixed(0)} ms, p99 ${Number(split.sent_p99).toFixed(0)} ms`);
  } finally {
    await stopService(service);
    receiver.closeAllConnections();
    receiver.close();
    await database.close();
    await scratch.drop();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
