import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { formatPosition } from '../src/core/events.js';
import { spendingProjection } from '../projections/spending/spending.projection.js';
import { listParkedEvents, skipParkedEvent } from '../src/infrastructure/projections/parked-events.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const logs = new PassThrough();
  let pending = '';
  logs.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
  });
  t = await startTestApp({ logTo: logs, env: { LOG_LEVEL: 'warn' } });
});
afterAll(() => t.close());

async function health() {
  return (await request(t.server).get('/health').expect(200)).body as { status: string; projections: Record<string, { status: string; parked: number }> };
}

describe('an event the transactions projector cannot apply', () => {
  it('is parked within seconds; another user’s writes still answer in normal time and /health reports the projection degraded', async () => {
    const alice = await t.newUser();
    const aliceAccount = (await t.as(alice.key).post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 100 }).expect(201)).body.id;
    const good = (await t.as(alice.key).post('/v1/transactions', { accountId: aliceAccount, amount: -5, date: '2026-03-01', name: 'Coffee' }).expect(201)).body.id;
    expect(await health()).toMatchObject({ status: 'ok' });

    // A TransactionCreated PostgreSQL refuses (year 0), appended straight into the store as a
    // request that slipped past the edge would have been.
    const [template] = await t.runtime.eventStore.readStream(`transaction-${good}`);
    const poisonId = randomUUID();
    const requestId = `req-${randomUUID()}`;
    const appendedAt = Date.now();
    const { position } = await t.runtime.eventStore.appendToStream(
      `transaction-${poisonId}`,
      [{ type: 'TransactionCreated', data: { ...(template.data as object), transactionId: poisonId, date: '0000-01-01' }, metadata: { ...template.metadata, requestId, causationId: requestId } }],
      'no_stream',
    );
    // Bob writes while the runner is still trying the poison event (it waits, at most for that
    // event's bounded retries), and after it is parked (as usual).
    const bob = await t.newUser();
    const bobAccount = (await t.as(bob.key).post('/v1/accounts', { name: 'Card', type: 'credit_card', subtype: 'credit card', currentBalance: 0 }).expect(201)).body.id;
    const duringStarted = Date.now();
    const during = t.as(bob.key).post('/v1/transactions', { accountId: bobAccount, amount: -9, date: '2026-03-02', name: 'During' }).expect(201);
    expect(await t.runtime.watch.waitFor(position, 10_000, ['transactions'])).toBe(true);
    const timeToPark = Date.now() - appendedAt;
    await during;
    const duringMs = Date.now() - duringStarted;
    const timings: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const started = Date.now();
      await t.as(bob.key).post('/v1/transactions', { accountId: bobAccount, amount: -10 - i, date: '2026-03-02', name: `Lunch ${i}` }).expect(201);
      timings.push(Date.now() - started);
    }
    console.info(
      `projection parking e2e: poison event parked ${timeToPark} ms after its append; another user's POST /v1/transactions answered 201 ` +
        `in ${duringMs} ms while it was being retried, then in ${timings.join(', ')} ms`,
    );
    expect(timeToPark).toBeLessThan(5000);
    expect(duringMs).toBeLessThan(5000);
    expect(Math.max(...timings)).toBeLessThan(1000);
    expect((await t.as(bob.key).get('/v1/transactions').expect(200)).body.transactions).toHaveLength(6);
    expect((await t.as(alice.key).get('/v1/transactions').expect(200)).body.transactions.map((row: { id: string }) => row.id)).toEqual([good]);

    const degraded = await health();
    expect(degraded.status).toBe('degraded');
    expect(degraded.projections).toEqual({
      accounts: { status: 'ok', parked: 0 },
      transactions: { status: 'parked', parked: 1 },
      'transaction-activity': { status: 'ok', parked: 0 },
      'balance-snapshots': { status: 'ok', parked: 0 },
      categories: { status: 'ok', parked: 0 },
      tags: { status: 'ok', parked: 0 },
      'link-items': { status: 'ok', parked: 0 },
      brokerage: { status: 'ok', parked: 0 },
      'user-settings': { status: 'ok', parked: 0 },
      // The spending read model reads the same event and cannot store its day either.
      spending: { status: 'parked', parked: 1 },
      recurring: { status: 'ok', parked: 0 },
      // Reactions (decision 0038) are consumers of the feed too, with their own checkpoints.
      'recurring-refresh-requests': { status: 'ok', parked: 0 },
      'tag-deletion-requests': { status: 'ok', parked: 0 },
      'bank-link-sync-requests': { status: 'ok', parked: 0 },
      'brokerage-sync-requests': { status: 'ok', parked: 0 },
      'webhook-deliveries': { status: 'ok', parked: 0 },
      'rules-on-new-transactions': { status: 'ok', parked: 0 },
      'transfer-pairing': { status: 'ok', parked: 0 },
    });

    const parkedEvents = await listParkedEvents(t.runtime.database.db);
    expect(parkedEvents.map((event) => event.projection)).toEqual(['spending', 'transactions']);
    const parked = parkedEvents.find((event) => event.projection === 'transactions') as (typeof parkedEvents)[number];
    expect(parked).toMatchObject({ projection: 'transactions', event_type: 'TransactionCreated', stream_id: `transaction-${poisonId}`, request_id: requestId, user_id: alice.userId, status: 'parked' });
    expect(parked.error).toContain('out of range');
    expect(logLines).toContainEqual(
      expect.objectContaining({ level: 50, projection: 'transactions', requestId, userId: alice.userId, eventType: 'TransactionCreated', position: formatPosition(position) }),
    );

    // The operator skips it: the projection is healthy again, and the record says who and when.
    const skipped = await skipParkedEvent(t.runtime.database.db, { name: 'transactions', version: parked.version }, position, 'on-call');
    expect(skipped).toMatchObject({ result: 'skipped', parked: { resolved_by: 'on-call' } });
    await skipParkedEvent(t.runtime.database.db, { name: 'spending', version: spendingProjection.version }, position, 'on-call');
    expect(await health()).toMatchObject({ status: 'ok', projections: { transactions: { status: 'ok', parked: 0 } } });
  });
});
