import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import request from 'supertest';
import { showProjectionStatus } from '../src/infrastructure/projections/projection-commands.js';
import { eventMetadata } from '../src/infrastructure/projections/recording-projection.test-support.js';
import { parsePrometheusText, valueOf } from './support/prometheus-text.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * What an operator is told when no instance applies the projections, when one of them stands still
 * behind the head, and while a rebuild runs (issue 21, items 2 and 5): /health, `projections status`
 * and the metrics say the same thing.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { METRICS_PORT: '0', RECURRING_REFRESH_DEBOUNCE_MS: '0' } });
  // A new database: every projection reaches the head once, from building to live.
  for (const deadline = Date.now() + 15_000; (await health()).status !== 'ok'; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`the projections did not all go live: ${JSON.stringify(await health())}`);
  }
});
afterAll(() => t.close());

async function health() {
  return (await request(t.server).get('/health').expect(200)).body as {
    status: string;
    checks: Record<string, string>;
    projections: Record<string, { status: string; parked: number; rebuild?: { startedAt: string; eventsApplied: number } }>;
  };
}

async function statusLines(): Promise<string[]> {
  const lines: string[] = [];
  await showProjectionStatus(t.runtime.database.db, t.runtime.eventStore, t.runtime.projections, { log: (line) => lines.push(line), error: (line) => lines.push(line) });
  return lines;
}

async function metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const endpoint = t.runtime.metricsEndpoint as { port: number };
  const text = (await request(`http://127.0.0.1:${endpoint.port}`).get('/metrics').expect(200)).text;
  const samples = parsePrometheusText(text);
  try {
    return valueOf(samples, name, labels);
  } catch {
    return undefined;
  }
}

describe('projection health, status and metrics', () => {
  it('shows a rebuild under way in all three, with how far its replay has got', async () => {
    const { db } = t.runtime.database;
    const accounts = t.runtime.projections.find((projection) => projection.name === 'accounts') as { name: string; version: number };
    expect((await health()).projections.accounts).toEqual({ status: 'ok', parked: 0 });
    // What `projections rebuild` records while its shadow replays (projection_rebuilds, one row per rebuild).
    await db.insertInto('projection_rebuilds').values({ name: accounts.name, version: accounts.version, shadow_schema: 'projection_accounts_shadow_test', events_applied: '1234' }).execute();
    try {
      const during = await health();
      expect(during.projections.accounts).toEqual({ status: 'ok', parked: 0, rebuild: { startedAt: expect.any(String), eventsApplied: 1234 } });
      expect((await statusLines()).find((line) => line.startsWith('accounts\t'))).toMatch(/rebuilding \(1,234 applied since /);
      expect(await metric('ledgerline_projection_rebuild_events_applied', { projection: accounts.name, version: String(accounts.version) })).toBe(1234);
    } finally {
      await db.deleteFrom('projection_rebuilds').where('name', '=', accounts.name).execute();
    }
    expect((await health()).projections.accounts).toEqual({ status: 'ok', parked: 0 });
    expect(await metric('ledgerline_projection_rebuild_events_applied', { projection: accounts.name, version: String(accounts.version) })).toBeUndefined();
  });

  it('says degraded when no instance applies the projections, and names the one standing still behind the head', async () => {
    const { db } = t.runtime.database;
    expect(await health()).toMatchObject({ status: 'ok', checks: { projectionDaemon: 'up' } });
    await t.runtime.daemon.stop();
    // Appended while nothing applies the feed: every checkpoint stays behind the head.
    await t.runtime.eventStore.appendToStream(`probe-${randomUUID()}`, [{ type: 'HealthProbed', data: {}, metadata: eventMetadata() }], 'no_stream');
    const stopped = await health();
    expect(stopped.status).toBe('degraded');
    expect(stopped.checks.projectionDaemon).toBe('down');
    expect((await statusLines())[1]).toMatch(/NO INSTANCE IS APPLYING THE PROJECTIONS/);
    // Its checkpoint unmoved for longer than the stale window: lagging, where a moment behind is not.
    await sql`UPDATE projection_versions SET updated_at = now() - interval '1 minute' WHERE name = 'balance-snapshots'`.execute(db);
    const lagging = await health();
    expect(lagging.projections['balance-snapshots']).toEqual({ status: 'lagging', parked: 0 });
    expect((await statusLines()).find((line) => line.startsWith('balance-snapshots\t'))).toMatch(/\tlive, LAGGING\t/);
  });
});
