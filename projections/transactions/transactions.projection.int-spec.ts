import { randomUUID } from 'node:crypto';
import { createMigratedDatabase, type TestDatabase } from '../../test/support/test-database.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { TransactionEvent } from '../../src/modules/transactions/transaction.js';
import { transactionsProjection } from './transactions.projection.js';

let database: TestDatabase;
let connection: DatabaseConnection;

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
});
afterAll(async () => {
  await connection.close();
  await database.drop();
});

const userId = randomUUID();
let position = 0n;
function recorded(event: TransactionEvent, revision: number, occurredAt: string): RecordedEvent {
  position += 1n;
  return {
    id: randomUUID(),
    streamId: `transaction-${(event.data as { transactionId: string }).transactionId}`,
    revision: BigInt(revision),
    position: { commit: position, prepare: position },
    type: event.type,
    data: event.data,
    metadata: { userId, actor: 'user', requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt, schemaVersion: 1 },
  };
}

describe('transactions projection', () => {
  it('applies a batch of creations, several edits of one transaction and a deletion as the events say, in order', async () => {
    const [kept, removed] = [randomUUID(), randomUUID()];
    const base = { accountId: randomUUID(), source: 'manual' as const, amount: '-10', date: '2026-11-01', merchantName: null, categoryId: null, notes: null, pending: false, paymentChannel: null, location: null, tagIds: [], authorizedDate: null };
    const location = { address: null, city: 'Porto', country: 'PT', postal_code: null, region: null, store_number: null, lat: 41.1, lon: null };
    const events = [
      recorded({ type: 'TransactionCreated', data: { ...base, transactionId: kept, name: 'Cafe' } }, 0, '2026-11-01T10:00:00.000Z'),
      recorded({ type: 'TransactionCreated', data: { ...base, transactionId: removed, name: 'Gone' } }, 0, '2026-11-01T10:00:01.000Z'),
      recorded({ type: 'TransactionEdited', data: { transactionId: kept, changes: [{ field: 'name', oldValue: 'Cafe', newValue: 'Café', locked: true }, { field: 'amount', oldValue: '-10', newValue: '-10.5', locked: true }] } }, 1, '2026-11-01T10:00:02.000Z'),
      recorded({ type: 'TransactionEdited', data: { transactionId: kept, changes: [{ field: 'name', oldValue: 'Café', newValue: 'Cafe', locked: false }, { field: 'location', oldValue: null, newValue: location, locked: true }, { field: 'notes', oldValue: null, newValue: 'x', locked: true }] } }, 2, '2026-11-01T10:00:03.000Z'),
      recorded({ type: 'TransactionEdited', data: { transactionId: kept, changes: [{ field: 'notes', oldValue: 'x', newValue: null, locked: false }, { field: 'tagIds', oldValue: [], newValue: [userId], locked: true }] } }, 3, '2026-11-01T10:00:04.000Z'),
      recorded({ type: 'TransactionDeleted', data: { transactionId: removed, accountId: base.accountId } }, 1, '2026-11-01T10:00:05.000Z'),
    ];
    await connection.db.transaction().execute((trx) => transactionsProjection.apply(trx, events));
    const rows = await connection.db.selectFrom('transactions').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: kept, name: 'Cafe', amount: '-10.5000', notes: null, location, tag_ids: [userId], locked_fields: ['amount', 'location', 'tags'], revision: 3 });
    expect(rows[0].updated_at.toISOString()).toBe('2026-11-01T10:00:04.000Z');
  });

  it("drops the transactions of a disconnected item's accounts and keeps every other account's", async () => {
    const [linkedAccount, otherAccount, inItem, elsewhere] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const base = { source: 'manual' as const, amount: '-3', date: '2026-11-02', merchantName: null, categoryId: null, notes: null, pending: false, paymentChannel: null, location: null, tagIds: [], authorizedDate: null };
    const linkItemUuid = randomUUID();
    position += 1n;
    const disconnected: RecordedEvent = {
      id: randomUUID(),
      streamId: `link-item-${linkItemUuid}`,
      revision: 1n,
      position: { commit: position, prepare: position },
      type: 'LinkItemDisconnected',
      data: { linkItemUuid, linkItemId: 'item-1', accountIds: [linkedAccount] },
      metadata: { userId, actor: 'user', requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-02T10:00:02.000Z', schemaVersion: 1 },
    };
    const events = [
      recorded({ type: 'TransactionCreated', data: { ...base, transactionId: inItem, accountId: linkedAccount, name: 'Linked' } }, 0, '2026-11-02T10:00:00.000Z'),
      recorded({ type: 'TransactionCreated', data: { ...base, transactionId: elsewhere, accountId: otherAccount, name: 'Manual' } }, 0, '2026-11-02T10:00:01.000Z'),
      disconnected,
    ];
    await connection.db.transaction().execute((trx) => transactionsProjection.apply(trx, events));
    const ids = (await connection.db.selectFrom('transactions').select('id').where('account_id', 'in', [linkedAccount, otherAccount]).execute()).map((row) => row.id);
    expect(ids).toEqual([elsewhere]);
  });
  it('lists an imported transaction with its provider details, follows a system edit, and takes it out of the list when removed or replaced', async () => {
    const [pendingId, postedId, droppedId, accountId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const provider = {
      name: 'SQ *BLUE BOTTLE', merchantName: null, amount: '-6.5', date: '2026-11-01', categoryId: null, paymentChannel: 'in store' as const,
      location: null, pending: true, authorizedDate: '2026-11-01',
      counterparties: [{ name: 'Square', type: 'payment_terminal', logoUrl: null, website: 'squareup.com', entityId: null, confidenceLevel: 'HIGH' }],
      logoUrl: null, website: null,
    };
    const imported = (transactionId: string, overrides: object = {}): TransactionEvent => ({
      type: 'TransactionImported',
      data: { ...provider, transactionId, accountId, source: 'bank_link', linkItemId: 'item', linkAccountId: 'link-acct', providerTransactionId: transactionId, isoCurrencyCode: 'USD', replacesTransactionId: null, ...overrides },
    });
    const enriched = { ...provider, merchantName: 'Blue Bottle', logoUrl: 'https://logo.example/bb.png', website: 'bluebottle.example' };
    await connection.db.transaction().execute((trx) =>
      transactionsProjection.apply(trx, [
        recorded(imported(pendingId), 0, '2026-11-02T10:00:00.000Z'),
        recorded(imported(droppedId), 0, '2026-11-02T10:00:00.000Z'),
        recorded({ type: 'TransactionEdited', data: { transactionId: pendingId, changes: [{ field: 'merchantName', oldValue: null, newValue: 'Blue Bottle', locked: false }], provider: enriched } }, 1, '2026-11-02T10:00:01.000Z'),
        recorded({ type: 'TransactionRemoved', data: { transactionId: droppedId, accountId } }, 1, '2026-11-02T10:00:02.000Z'),
      ]),
    );
    const pending = await connection.db.selectFrom('transactions').selectAll().where('account_id', '=', accountId).execute();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ id: pendingId, source: 'bank_link', link_account_id: 'link-acct', pending: true, merchant_name: 'Blue Bottle', logo_url: 'https://logo.example/bb.png', website: 'bluebottle.example', counterparties: [{ name: 'Square', type: 'payment_terminal', logo_url: null, website: 'squareup.com', entity_id: null, confidence_level: 'HIGH' }], locked_fields: [] });
    await connection.db.transaction().execute((trx) =>
      transactionsProjection.apply(trx, [
        recorded(imported(postedId, { pending: false, replacesTransactionId: pendingId }), 0, '2026-11-03T10:00:00.000Z'),
        recorded({ type: 'TransactionReplaced', data: { transactionId: pendingId, accountId, byTransactionId: postedId } }, 2, '2026-11-03T10:00:01.000Z'),
      ]),
    );
    const posted = await connection.db.selectFrom('transactions').selectAll().where('account_id', '=', accountId).execute();
    expect(posted.map((row) => [row.id, row.pending])).toEqual([[postedId, false]]);
  });
});
