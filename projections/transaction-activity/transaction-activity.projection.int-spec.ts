import { randomUUID } from 'node:crypto';
import { foldOwnStream } from '../../src/core/decider.js';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import type { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { auditTransaction } from '../../src/modules/transactions/audit/transaction-audit.report.js';
import type { TransactionEvent } from '../../src/modules/transactions/transaction.js';
import { transactionDecider } from '../../src/modules/transactions/transaction.decider.js';
import { type ProjectionFixture, startProjectionFixture } from '../../test/support/projection-fixture.js';
import { transactionActivityProjection } from './transaction-activity.projection.js';

let fixture: ProjectionFixture;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;

beforeAll(async () => {
  fixture = await startProjectionFixture(transactionActivityProjection);
  ({ connection, store, watch } = fixture);
});
afterAll(() => fixture.close());

const userId = randomUUID();

/** Appends `events` to the transaction's stream in one append (so, most likely, one batch of the projector). */
async function append(transactionId: string, events: readonly TransactionEvent[]): Promise<void> {
  const metadata = { userId, actor: 'user' as const, requestId: randomUUID(), causationId: 'c', correlationId: 'flow-1', occurredAt: new Date().toISOString(), schemaVersion: 1 };
  const result = await store.appendToStream(`transaction-${transactionId}`, events.map((event) => ({ ...event, metadata })), 'any');
  expect(await watch.waitFor(result.position, 10_000)).toBe(true);
}

const manual = (transactionId: string): TransactionEvent => ({
  type: 'TransactionCreated',
  data: { transactionId, accountId: 'a1b2c3d4-0000-4000-8000-000000000001', source: 'manual', pending: false, authorizedDate: null, name: 'Bakery', merchantName: null, amount: '-4.2', date: '2026-11-02', categoryId: null, notes: 'croissants', paymentChannel: null, location: null, tagIds: [] },
});
const edit = (transactionId: string, oldValue: string, newValue: string): TransactionEvent => ({ type: 'TransactionEdited', data: { transactionId, changes: [{ field: 'amount', oldValue, newValue, locked: true }] } });
const tag = (transactionId: string, tagId: string): TransactionEvent => ({ type: 'TagApplied', data: { transactionId, tagIds: [tagId], resultingTagIds: [tagId], locked: true } });
const deleted = (transactionId: string): TransactionEvent => ({ type: 'TransactionDeleted', data: { transactionId, accountId: 'a1b2c3d4-0000-4000-8000-000000000001' } });

/** The projection's rows against the activity derived from the stream alone (the audit's comparison). */
async function disagreementsOf(transactionId: string) {
  const history = await store.readStream(`transaction-${transactionId}`);
  const activity = await connection.db
    .selectFrom('transaction_activity')
    .select(['id', 'kind', 'actor', 'created_at', 'field', 'old_value', 'new_value', 'request_id', 'correlation_id', 'rule_id', 'revision', 'ordinal'])
    .where('transaction_id', '=', transactionId)
    .orderBy('revision')
    .orderBy('ordinal')
    .execute();
  const audit = auditTransaction(history, foldOwnStream(transactionDecider, history, userId), false, { row: null, activity });
  return { activity, disagreements: audit.disagreements.filter((disagreement) => disagreement.where.startsWith('transaction_activity')) };
}

describe('transaction-activity projection', () => {
  const tagId = randomUUID();

  it('finds the values a deletion ends with in its own rows, from earlier batches', async () => {
    const id = randomUUID();
    await append(id, [manual(id)]);
    await append(id, [edit(id, '-4.2', '-4.5')]);
    await append(id, [tag(id, tagId)]);
    await append(id, [deleted(id)]);
    const { activity, disagreements } = await disagreementsOf(id);
    expect(disagreements).toEqual([]);
    expect(activity.filter((row) => row.kind === 'deleted').map((row) => [row.field, row.old_value, row.new_value])).toEqual([
      ['name', 'Bakery', null],
      ['amount', -4.5, null],
      ['date', '2026-11-02', null],
      ['notes', 'croissants', null],
      ['tags', [tagId], null],
    ]);
  });

  it('and from the batch itself, when the transaction is created, edited and deleted in one', async () => {
    const id = randomUUID();
    await append(id, [manual(id), edit(id, '-4.2', '-5'), tag(id, tagId), deleted(id)]);
    expect((await disagreementsOf(id)).disagreements).toEqual([]);
  });

  it('records a departure once: removed by the provider, then retired for its posted one', async () => {
    const id = randomUUID();
    const removed: TransactionEvent = { type: 'TransactionRemoved', data: { transactionId: id, accountId: 'a1b2c3d4-0000-4000-8000-000000000001' } };
    const replaced: TransactionEvent = { type: 'TransactionReplaced', data: { transactionId: id, accountId: 'a1b2c3d4-0000-4000-8000-000000000001', byTransactionId: randomUUID() } };
    await append(id, [manual(id), edit(id, '-4.2', '-6')]);
    await append(id, [removed]);
    await append(id, [replaced]);
    const other = randomUUID();
    await append(other, [manual(other), removed, replaced].map((event) => ({ ...event, data: { ...event.data, transactionId: other } }) as TransactionEvent));
    for (const transactionId of [id, other]) {
      const { activity, disagreements } = await disagreementsOf(transactionId);
      expect(disagreements).toEqual([]);
      expect(activity.filter((row) => row.kind === 'deleted')).toHaveLength(4);
    }
  });

  it('keeps a JSON null apart from no value: an edit from null, a creation without a before', async () => {
    const id = randomUUID();
    await append(id, [manual(id), { type: 'TransactionEdited', data: { transactionId: id, changes: [{ field: 'merchantName', oldValue: null, newValue: 'Bakery Ltd', locked: true }] } }]);
    const rows = await connection.db
      .selectFrom('transaction_activity')
      .select((eb) => ['kind', 'field', eb.fn<string>('jsonb_typeof', ['old_value']).as('before')])
      .where('transaction_id', '=', id)
      .where('field', 'in', ['name', 'merchantName'])
      .orderBy('revision')
      .execute();
    expect(rows).toEqual([
      { kind: 'created', field: 'name', before: null },
      { kind: 'edited', field: 'merchantName', before: 'null' },
    ]);
  });

  // Last: once the rebuilt version is live it supersedes the current one, whose runner then stops.
  it('rebuilds the same rows, order included, from the events alone', async () => {
    const [{ original, rebuilt }] = await fixture.rebuildBeside({ transaction_activity: 'transaction_id, revision, ordinal' });
    expect([rebuilt.length > 0, rebuilt]).toEqual([true, original]);
  });
});
