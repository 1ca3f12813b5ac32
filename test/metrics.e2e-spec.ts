import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import request from 'supertest';
import { PROJECTIONS } from '../projections/index.js';
import type { JobDefinition } from '../src/infrastructure/jobs/job.js';
import { serviceJobs } from '../src/service-jobs.js';
import { parsePrometheusText, type Sample, samplesOf, valueOf } from './support/prometheus-text.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let metrics: string;
let releaseBlocker: () => void = () => undefined;
const blockerReleased = new Promise<void>((resolve) => (releaseBlocker = resolve));

/** Jobs of this spec beside the service's own: one that runs until told, one that always fails, one far in the future. */
const probeJobs = (runtime: Parameters<typeof serviceJobs>[0]): JobDefinition<never>[] => [
  ...serviceJobs(runtime),
  { name: 'metrics-probe-blocks', handle: () => blockerReleased },
  {
    name: 'metrics-probe-fails',
    handle: async () => {
      throw new Error('this job always fails');
    },
  },
  { name: 'metrics-probe-later', handle: async () => undefined },
];

async function scrape(): Promise<{ samples: Sample[]; text: string; ms: number }> {
  const started = performance.now();
  const response = await request(metrics).get('/metrics').expect(200);
  const ms = performance.now() - started;
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return { samples: parsePrometheusText(response.text), text: response.text, ms };
}

async function eventually<T>(read: () => Promise<T>, holds: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in time: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  // No debounce: the recurring refresh the direct appends below ask for (a reaction) runs at once and is settled before the probe jobs.
  t = await startTestApp({ env: { METRICS_PORT: '0', RECURRING_REFRESH_DEBOUNCE_MS: '0' }, jobs: probeJobs });
  const endpoint = t.runtime.metricsEndpoint;
  if (!endpoint) throw new Error('METRICS_PORT=0 should have started the metrics listener');
  metrics = `http://127.0.0.1:${endpoint.port}`;
});
afterAll(async () => {
  releaseBlocker();
  await t.close();
});

describe('the metrics listener', () => {
  it('listens apart from the API, on loopback by default, and serves GET /metrics only', async () => {
    expect(t.runtime.metricsEndpoint).toMatchObject({ host: '127.0.0.1' });
    await request(metrics).get('/').expect(404);
    await request(metrics).get('/v1/accounts').expect(404);
    await request(metrics).post('/metrics').expect(405).expect('Allow', 'GET, HEAD');
    // The API's own port has no /metrics.
    await request(t.server).get('/metrics').expect(404);
    await request(t.server).get('/v1/metrics').expect(404);
  });
});

describe('a scrape after requests, appends, jobs and a parked event', () => {
  const ids: string[] = [];
  let transactionsVersion: number;

  beforeAll(async () => {
    transactionsVersion = (PROJECTIONS.find((projection) => projection.name === 'transactions') as { version: number }).version;
    const user = await t.newUser();
    const client = t.as(user.key);
    const account = (await client.post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 100 }).expect(201)).body.id as string;
    const tag = (await client.post('/v1/tags', { name: 'Trip', color: 'blue' }).expect(201)).body.id as string;
    const transaction = (await client.post('/v1/transactions', { accountId: account, amount: -5, date: '2026-03-01', name: 'Coffee', tagIds: [tag] }).expect(201)).body.id as string;
    await client.get(`/v1/transactions/${transaction}`).expect(200);
    const unknown = randomUUID();
    await client.get(`/v1/transactions/${unknown}`).expect(404);
    await request(t.server).get(`/no-such-route/${unknown}`).expect(404);
    // The tag's deletion queues the fan-out job that takes it off the transaction.
    await client.delete(`/v1/tags/${tag}`).expect(204);
    ids.push(account, tag, transaction, unknown);
    await t.settle();

    // An append that loses the race on its expected revision, and a batch of new streams one of which exists.
    const [recorded] = await t.runtime.eventStore.readStream(`transaction-${transaction}`);
    const template = { type: recorded.type, data: recorded.data, metadata: recorded.metadata };
    await expect(t.runtime.eventStore.appendToStream(`transaction-${transaction}`, [template], 'no_stream')).rejects.toThrow(/expected revision/);
    const copy = randomUUID();
    ids.push(copy);
    const copied = { ...template, data: { ...(template.data as object), transactionId: copy } };
    const { existing } = await t.runtime.eventStore.appendToNewStreams([
      { streamId: `transaction-${copy}`, events: [copied] },
      { streamId: `transaction-${transaction}`, events: [template] },
    ]);
    expect(existing).toEqual([`transaction-${transaction}`]);

    // A TransactionCreated PostgreSQL refuses (year 0), as in test/projection-parking.e2e-spec.ts.
    const poison = randomUUID();
    ids.push(poison);
    const { position } = await t.runtime.eventStore.appendToStream(`transaction-${poison}`, [{ ...template, data: { ...(template.data as object), transactionId: poison, date: '0000-01-01' } }], 'no_stream');
    expect(await t.runtime.watch.waitFor(position, 15_000)).toBe(true);
    await t.settle();

    await t.runtime.jobs.enqueue('metrics-probe-blocks', {}, { jobId: 'metrics-probe-blocks-1' });
    await t.runtime.jobs.enqueue('metrics-probe-fails', {}, { jobId: 'metrics-probe-fails-1' });
    await t.runtime.jobs.enqueue('metrics-probe-later', {}, { jobId: 'metrics-probe-later-1', delayMs: 600_000 });
  });

  it('counts and times HTTP requests by method, route template and status, never by path or id', async () => {
    const { samples, text, ms } = await scrape();
    console.info(`metrics e2e: a scrape answered in ${ms.toFixed(1)} ms with ${samples.length} samples (${text.length} bytes)`);
    const requests = (labels: Record<string, string>) => valueOf(samples, 'ledgerline_http_requests_total', labels);
    expect(requests({ method: 'POST', route: '/v1/accounts', status: '201' })).toBe(1);
    expect(requests({ method: 'POST', route: '/v1/transactions', status: '201' })).toBe(1);
    expect(requests({ method: 'GET', route: '/v1/transactions/:transactionId', status: '200' })).toBe(1);
    expect(requests({ method: 'GET', route: '/v1/transactions/:transactionId', status: '404' })).toBe(1);
    expect(requests({ method: 'DELETE', route: '/v1/tags/:tagId', status: '204' })).toBe(1);
    // /metrics and /v1/metrics on the API's port, and /no-such-route/<id>.
    expect(requests({ method: 'GET', route: 'unmatched', status: '404' })).toBe(3);
    for (const series of samplesOf(samples, 'ledgerline_http_requests_total')) {
      expect(series.labels.route === 'unmatched' || series.labels.route.startsWith('/')).toBe(true);
      expect(valueOf(samples, 'ledgerline_http_request_duration_seconds_count', series.labels)).toBe(series.value);
      expect(valueOf(samples, 'ledgerline_http_request_duration_seconds_sum', series.labels)).toBeGreaterThan(0);
      expect(valueOf(samples, 'ledgerline_http_request_duration_seconds_bucket', { ...series.labels, le: '+Inf' })).toBe(series.value);
    }
    for (const id of ids) expect(text).not.toContain(id);
  });

  it('times appends by operation and outcome and counts the events written', async () => {
    const { samples } = await scrape();
    const appends = (operation: string, outcome: string) => valueOf(samples, 'ledgerline_event_store_append_duration_seconds_count', { operation, outcome });
    expect(appends('append_to_stream', 'appended')).toBeGreaterThanOrEqual(4);
    expect(appends('append_to_stream', 'conflict')).toBe(1);
    expect(appends('append_to_new_streams', 'appended')).toBe(1);
    // Every event in this fresh database went through the runtime's store.
    const { rows } = await sql<{ count: string }>`SELECT count(*) AS count FROM events`.execute(t.runtime.database.db);
    expect(valueOf(samples, 'ledgerline_events_appended_total')).toBe(Number(rows[0].count));
  });

  it('reports each projection version: checkpoint at the head, no lag once caught up, and the parked event', async () => {
    const { rows } = await sql<{ head: string }>`SELECT max(global_position)::text AS head FROM events`.execute(t.runtime.database.db);
    const head = Number(rows[0].head);
    const parked = await sql<{ projection: string; version: number; count: number }>`
      SELECT projection, version, count(*)::int AS count FROM parked_events WHERE status = 'parked' GROUP BY projection, version`.execute(t.runtime.database.db);
    console.info(`metrics e2e: the poison event is parked by ${parked.rows.map((row) => `${row.projection} v${row.version}`).join(', ')}`);
    // Every consumer of the feed, reactions too; a consumer the feed passed by stores its checkpoint a moment later.
    const consumers = t.runtime.projections;
    const atHead = (scraped: Sample[]) => consumers.every(({ name, version }) => valueOf(scraped, 'ledgerline_projection_checkpoint_position', { projection: name, version: String(version) }) === head);
    const { samples } = await eventually(scrape, ({ samples: scraped }) => atHead(scraped), 'every checkpoint at the head');
    expect(valueOf(samples, 'ledgerline_event_store_head_position', { store: 'postgresql' })).toBe(head);
    for (const { name, version } of consumers) {
      const labels = { projection: name, version: String(version) };
      expect(valueOf(samples, 'ledgerline_projection_checkpoint_position', labels)).toBe(head);
      expect(valueOf(samples, 'ledgerline_projection_lag_events', labels)).toBe(0);
      const parkedHere = parked.rows.find((row) => row.projection === name && row.version === version)?.count ?? 0;
      expect(valueOf(samples, 'ledgerline_projection_parked_events', labels)).toBe(parkedHere);
    }
    expect(samplesOf(samples, 'ledgerline_projection_parked_events')).toHaveLength(consumers.length);
    expect(valueOf(samples, 'ledgerline_projection_parked_events', { projection: 'transactions', version: String(transactionsVersion) })).toBe(1);
  });

  it('reports jobs: durations and failures per job name, and the queue by state', async () => {
    // A moment when the blocked job runs and the failing one waits for its next try (it runs again every few seconds).
    const { samples } = await eventually(
      scrape,
      ({ samples }) =>
        valueOf(samples, 'ledgerline_job_failures_total', { job: 'metrics-probe-fails' }) >= 1 &&
        valueOf(samples, 'ledgerline_job_queue_depth', { state: 'active' }) === 1 &&
        valueOf(samples, 'ledgerline_job_queue_depth', { state: 'delayed' }) === 2,
      'the probe jobs running and failing',
    );
    expect(valueOf(samples, 'ledgerline_job_duration_seconds_count', { job: 'tag-deletion-fan-out', outcome: 'completed' })).toBe(1);
    expect(valueOf(samples, 'ledgerline_job_duration_seconds_count', { job: 'metrics-probe-fails', outcome: 'failed' })).toBe(valueOf(samples, 'ledgerline_job_failures_total', { job: 'metrics-probe-fails' }));
    expect(valueOf(samples, 'ledgerline_job_failures_total', { job: 'tag-deletion-fan-out' })).toBe(0);
    // Running: the blocked job; delayed: the far one and the failing one waiting for its retry.
    expect(valueOf(samples, 'ledgerline_job_queue_depth', { state: 'delayed' })).toBe(2);
    expect(valueOf(samples, 'ledgerline_job_queue_depth', { state: 'waiting' })).toBe(0);
    expect(valueOf(samples, 'ledgerline_job_queue_depth', { state: 'held' })).toBe(0);
    expect(samplesOf(samples, 'ledgerline_job_duration_seconds_count', { job: 'metrics-probe-blocks' })).toEqual([]);
    releaseBlocker();
    const after = await eventually(scrape, ({ samples }) => valueOf(samples, 'ledgerline_job_queue_depth', { state: 'active' }) === 0, 'the blocked job finished');
    expect(valueOf(after.samples, 'ledgerline_job_duration_seconds_count', { job: 'metrics-probe-blocks', outcome: 'completed' })).toBe(1);
  });

  it('carries the process metrics: resident memory, event-loop lag, and every source up', async () => {
    const { samples } = await scrape();
    expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    expect(samplesOf(samples, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);
    expect(samplesOf(samples, 'nodejs_heap_size_used_bytes')).toHaveLength(1);
    for (const source of ['projections', 'event_store', 'jobs']) {
      expect(valueOf(samples, 'ledgerline_scrape_source_up', { source })).toBe(1);
      expect(valueOf(samples, 'ledgerline_scrape_errors_total', { source })).toBe(0);
    }
  });
});

describe('a scrape while the database refuses connections', () => {
  it('still answers 200 with what it has, says which sources are down, and recovers', async () => {
    const name = new URL(t.runtime.config.databaseUrl as string).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    try {
      // This test's own database only: new connections are refused and the open ones are ended.
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      const down = await scrape();
      console.info(`metrics e2e: with the database refusing connections a scrape answered 200 in ${down.ms.toFixed(1)} ms`);
      expect(valueOf(down.samples, 'ledgerline_scrape_source_up', { source: 'projections' })).toBe(0);
      expect(valueOf(down.samples, 'ledgerline_scrape_source_up', { source: 'event_store' })).toBe(0);
      expect(valueOf(down.samples, 'ledgerline_scrape_source_up', { source: 'jobs' })).toBe(1);
      expect(valueOf(down.samples, 'ledgerline_scrape_errors_total', { source: 'projections' })).toBeGreaterThanOrEqual(1);
      // Missing, not stale: a source that is down leaves no values behind.
      expect(samplesOf(down.samples, 'ledgerline_projection_parked_events')).toEqual([]);
      expect(samplesOf(down.samples, 'ledgerline_event_store_head_position')).toEqual([]);
      expect(valueOf(down.samples, 'ledgerline_http_requests_total', { method: 'POST', route: '/v1/accounts', status: '201' })).toBe(1);
      expect(samplesOf(down.samples, 'ledgerline_job_queue_depth')).toHaveLength(4);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    const back = await eventually(scrape, ({ samples }) => valueOf(samples, 'ledgerline_scrape_source_up', { source: 'projections' }) === 1 && valueOf(samples, 'ledgerline_scrape_source_up', { source: 'event_store' }) === 1, 'the sources back');
    expect(samplesOf(back.samples, 'ledgerline_projection_parked_events')).toHaveLength(t.runtime.projections.length);
  });
});
