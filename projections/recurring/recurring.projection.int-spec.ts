import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../../src/core/events.js';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import type { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { listParkedEvents } from '../../src/infrastructure/projections/parked-events.js';
import { type RecurringStreamSnapshot, recurringStreamsStreamId } from '../../src/modules/insights/recurring/recurring-streams.js';
import { type ProjectionFixture, startProjectionFixture } from '../../test/support/projection-fixture.js';
import { recurringProjection } from './recurring.projection.js';

let fixture: ProjectionFixture;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;

beforeAll(async () => {
  fixture = await startProjectionFixture(recurringProjection);
  ({ connection, store, watch } = fixture);
});
afterAll(() => fixture.close());

const metadata = (userId: string) => ({ userId, actor: 'system' as const, requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-20T10:00:00.000Z', schemaVersion: 1 });

async function append(userId: string, events: readonly DomainEvent[]): Promise<void> {
  const result = await store.appendToStream(recurringStreamsStreamId(userId), events.map((event) => ({ type: event.type, data: event.data, metadata: metadata(userId) })), 'any');
  expect(await watch.waitFor(result.position, 10_000)).toBe(true);
}

const snapshot = (overrides: Partial<RecurringStreamSnapshot> = {}): RecurringStreamSnapshot => ({
  recurringStreamId: randomUUID(),
  accountId: randomUUID(),
  streamType: 'outflow',
  frequency: 'MONTHLY',
  status: 'MATURE',
  averageAmount: '-15.49',
  lastAmount: '-15.49',
  firstDate: '2026-08-03',
  lastDate: '2026-11-03',
  predictedNextDate: '2026-12-03',
  activeUntil: '2026-12-10',
  transactionIds: [randomUUID(), randomUUID(), randomUUID(), randomUUID()],
  merchantName: 'Netflix',
  description: 'NETFLIX.COM',
  categoryId: null,
  ...overrides,
});

async function rowsOf(userId: string) {
  return connection.db
    .selectFrom('recurring_streams')
    .select(['id', 'account_id', 'frequency', 'status', 'average_amount', 'last_date', 'predicted_next_date', 'active_until', 'transaction_ids', 'revision'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

describe('recurring projection', () => {
  it('keeps the latest snapshot of each stream, and a tombstone that clears its next date', async () => {
    const userId = randomUUID();
    const [netflix, rent] = [snapshot(), snapshot({ merchantName: null, description: 'RENT', averageAmount: '-1450', lastAmount: '-1450' })];
    const longer = { ...netflix, lastDate: '2026-12-03', predictedNextDate: '2027-01-03', activeUntil: '2027-01-10', transactionIds: [...netflix.transactionIds, randomUUID()], averageAmount: '-15.99', lastAmount: '-17.49' };
    await append(userId, [
      { type: 'RecurringStreamUpdated', data: netflix },
      { type: 'RecurringStreamUpdated', data: rent },
    ]);
    await append(userId, [{ type: 'RecurringStreamUpdated', data: longer }]);
    await append(userId, [{ type: 'RecurringStreamTombstoned', data: { recurringStreamId: rent.recurringStreamId, reason: 'overdue' } }]);

    const expected = [
      { id: netflix.recurringStreamId, account_id: netflix.accountId, frequency: 'MONTHLY', status: 'MATURE', average_amount: '-15.9900', last_date: '2026-12-03', predicted_next_date: '2027-01-03', active_until: '2027-01-10', transaction_ids: longer.transactionIds, revision: 2 },
      { id: rent.recurringStreamId, account_id: rent.accountId, frequency: 'MONTHLY', status: 'TOMBSTONED', average_amount: '-1450.0000', last_date: '2026-11-03', predicted_next_date: null, active_until: null, transaction_ids: rent.transactionIds, revision: 3 },
    ].sort((a, b) => a.id.localeCompare(b.id));
    const rows = (await rowsOf(userId)).map((row) => ({ ...row, last_date: dateText(row.last_date), predicted_next_date: dateText(row.predicted_next_date), active_until: dateText(row.active_until), revision: Number(row.revision) }));
    expect(rows).toEqual(expected);
  });

  it('applies an event once: replaying an older snapshot (a retried batch) changes nothing', async () => {
    const userId = randomUUID();
    const first = snapshot();
    const second = { ...first, lastAmount: '-20', averageAmount: '-16.62' };
    await append(userId, [{ type: 'RecurringStreamUpdated', data: first }]);
    await append(userId, [{ type: 'RecurringStreamUpdated', data: second }]);
    const [older] = await store.readStream(recurringStreamsStreamId(userId));
    await connection.db.transaction().execute((trx) => recurringProjection.apply(trx, [older]));
    expect((await rowsOf(userId)).map((row) => [row.average_amount, Number(row.revision)])).toEqual([['-16.6200', 1]]);
  });

  it('parks a snapshot it cannot store and goes on with the next ones', async () => {
    const userId = randomUUID();
    const good = snapshot();
    await append(userId, [{ type: 'RecurringStreamUpdated', data: snapshot({ averageAmount: 'lots' }) }]);
    await append(userId, [{ type: 'RecurringStreamUpdated', data: good }]);
    const parked = (await listParkedEvents(connection.db)).filter((row) => row.stream_id === recurringStreamsStreamId(userId));
    expect(parked).toEqual([expect.objectContaining({ projection: 'recurring', event_type: 'RecurringStreamUpdated', status: 'parked' })]);
    expect((await rowsOf(userId)).map((row) => row.id)).toEqual([good.recurringStreamId]);
  });

  // Last: once the rebuilt version is live it supersedes version 1, whose runner then stops.
  it('rebuilds the same rows from the events alone (a new version replays $all)', async () => {
    const [{ original, rebuilt }] = await fixture.rebuildBeside({ recurring_streams: 'id' });
    expect([rebuilt.length > 0, rebuilt]).toEqual([true, original]);
  });
});

function dateText(value: unknown): string | null {
  if (value === null) return null;
  return value instanceof Date ? value.toISOString().slice(0, 10) : String(value);
}
