import { randomUUID } from 'node:crypto';
import { type ProjectionFixture, startProjectionFixture } from '../../test/support/projection-fixture.js';
import type { DomainEvent } from '../../src/core/events.js';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import type { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { listParkedEvents } from '../../src/infrastructure/projections/parked-events.js';
import { accountStreamId } from '../../src/modules/accounts/account.js';
import type { ProviderValues, TransactionImported } from '../../src/modules/transactions/imported-transaction.js';
import { type TransactionEvent, transactionStreamId } from '../../src/modules/transactions/transaction.js';
import { spendingProjection } from './spending.projection.js';
import { UNCATEGORIZED } from './spending.table.js';

let fixture: ProjectionFixture;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;

beforeAll(async () => {
  fixture = await startProjectionFixture(spendingProjection);
  ({ connection, store, watch } = fixture);
});
afterAll(() => fixture.close());

const metadata = (userId: string) => ({ userId, actor: 'user' as const, requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-20T10:00:00.000Z', schemaVersion: 1 });

async function append(streamId: string, events: readonly DomainEvent[], userId: string): Promise<void> {
  const result = await store.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata: metadata(userId) })), 'any');
  expect(await watch.waitFor(result.position, 10_000)).toBe(true);
}

const manual = (transactionId: string, accountId: string, amount: string, date: string, categoryId: string | null, pending = false): DomainEvent => ({
  type: 'TransactionCreated',
  data: { transactionId, accountId, source: 'manual', amount, date, name: 'x', merchantName: null, categoryId, notes: null, pending, paymentChannel: null, location: null, tagIds: [], authorizedDate: null },
});

const provider = (amount: string, date: string, categoryId: string | null, pending: boolean): ProviderValues => ({
  name: 'CARD', merchantName: null, amount, date, categoryId, paymentChannel: null, location: null, pending, authorizedDate: null, counterparties: [], logoUrl: null, website: null,
});

const imported = (transactionId: string, accountId: string, values: ProviderValues, replacesTransactionId: string | null = null): TransactionImported => ({
  type: 'TransactionImported',
  data: { ...values, transactionId, accountId, source: 'bank_link', linkItemId: 'item', linkAccountId: 'acc', providerTransactionId: transactionId, isoCurrencyCode: 'USD', replacesTransactionId },
});

interface Posted {
  accountId: string;
  categoryId: string | null;
  date: string;
  amount: number;
}

/** What the aggregate tables must hold for these posted transactions, summed here from the list. */
function aggregatesOf(posted: readonly Posted[], monthly: boolean) {
  const rows = new Map<string, { day: string; account_id: string; category_id: string; outflow: number; inflow: number; transactions: number }>();
  for (const { accountId, categoryId, date, amount } of posted) {
    const day = monthly ? `${date.slice(0, 7)}-01` : date;
    const key = `${day}|${accountId}|${categoryId}`;
    const row = rows.get(key) ?? { day, account_id: accountId, category_id: categoryId ?? UNCATEGORIZED, outflow: 0, inflow: 0, transactions: 0 };
    rows.set(key, { ...row, outflow: row.outflow + Math.max(0, -amount), inflow: row.inflow + Math.max(0, amount), transactions: row.transactions + 1 });
  }
  return [...rows.values()].sort((a, b) => `${a.day}${a.account_id}${a.category_id}`.localeCompare(`${b.day}${b.account_id}${b.category_id}`));
}

async function aggregateRows(table: 'spending_daily' | 'spending_monthly', userId: string) {
  const rows = await connection.db.selectFrom(table).select(['day', 'account_id', 'category_id', 'outflow', 'inflow', 'transactions']).where('user_id', '=', userId).execute();
  return rows
    .map((row) => ({ ...row, outflow: Number(row.outflow), inflow: Number(row.inflow) }))
    .sort((a, b) => `${a.day}${a.account_id}${a.category_id}`.localeCompare(`${b.day}${b.account_id}${b.category_id}`));
}

describe('spending projection', () => {
  it('keeps posted money per day and month through creations, edits, pending → posted, replacements, removals, deletions and a deleted account', async () => {
    const userId = randomUUID();
    const [checking, card, closed] = [randomUUID(), randomUUID(), randomUUID()];
    const [food, travel] = [randomUUID(), randomUUID()];
    const ids = Array.from({ length: 9 }, () => randomUUID());
    await append(transactionStreamId(ids[0]), [manual(ids[0], checking, '-10.25', '2026-10-31', food)], userId);
    await append(transactionStreamId(ids[1]), [manual(ids[1], checking, '-4', '2026-10-31', food)], userId);
    await append(transactionStreamId(ids[2]), [manual(ids[2], card, '15', '2026-11-02', food)], userId); // a refund
    await append(transactionStreamId(ids[3]), [manual(ids[3], card, '-99.99', '2026-11-02', null, true)], userId); // pending: not counted
    await append(transactionStreamId(ids[4]), [manual(ids[4], closed, '-50', '2026-11-03', travel)], userId);
    // Edits of amount, then date (across a month end), then category; the last one wins.
    await append(
      transactionStreamId(ids[0]),
      [
        { type: 'TransactionEdited', data: { transactionId: ids[0], changes: [{ field: 'amount', oldValue: '-10.25', newValue: '-12.5', locked: true }] } },
        { type: 'TransactionEdited', data: { transactionId: ids[0], changes: [{ field: 'date', oldValue: '2026-10-31', newValue: '2026-11-01', locked: true }, { field: 'name', oldValue: 'x', newValue: 'y', locked: true }] } },
        { type: 'TransactionEdited', data: { transactionId: ids[0], changes: [{ field: 'categoryId', oldValue: food, newValue: travel, locked: true }] } },
      ],
      userId,
    );
    // A pending card purchase the provider posts by an edit, another replaced by its posted transaction.
    await append(transactionStreamId(ids[5]), [imported(ids[5], card, provider('-20', '2026-11-03', food, true))], userId);
    await append(
      transactionStreamId(ids[5]),
      [{ type: 'TransactionEdited', data: { transactionId: ids[5], changes: [{ field: 'amount', oldValue: '-20', newValue: '-23.4', locked: false }], provider: provider('-23.4', '2026-11-03', food, false) } }],
      userId,
    );
    await append(transactionStreamId(ids[6]), [imported(ids[6], card, provider('-30', '2026-11-04', food, true))], userId);
    await append(transactionStreamId(ids[7]), [imported(ids[7], card, provider('-36', '2026-11-05', food, false), ids[6])], userId);
    await append(transactionStreamId(ids[6]), [{ type: 'TransactionReplaced', data: { transactionId: ids[6], accountId: card, byTransactionId: ids[7] } }], userId);
    // A duplicate the provider removes, a manual one the user deletes, an account deleted.
    await append(transactionStreamId(ids[8]), [imported(ids[8], card, provider('-36', '2026-11-05', food, false))], userId);
    await append(transactionStreamId(ids[8]), [{ type: 'TransactionRemoved', data: { transactionId: ids[8], accountId: card } }], userId);
    await append(transactionStreamId(ids[1]), [{ type: 'TransactionDeleted', data: { transactionId: ids[1], accountId: checking } }], userId);
    await append(accountStreamId(closed), [{ type: 'AccountDeleted', data: { accountId: closed } }], userId);

    const posted: Posted[] = [
      { accountId: checking, categoryId: travel, date: '2026-11-01', amount: -12.5 },
      { accountId: card, categoryId: food, date: '2026-11-02', amount: 15 },
      { accountId: card, categoryId: food, date: '2026-11-03', amount: -23.4 },
      { accountId: card, categoryId: food, date: '2026-11-05', amount: -36 },
    ];
    expect(await aggregateRows('spending_daily', userId)).toEqual(aggregatesOf(posted, false));
    expect(await aggregateRows('spending_monthly', userId)).toEqual(aggregatesOf(posted, true));
    const remembered = await connection.db.selectFrom('spending_transactions').select(['id', 'pending']).where('user_id', '=', userId).orderBy('id').execute();
    expect(remembered).toEqual([ids[0], ids[2], ids[3], ids[5], ids[7]].sort().map((id) => ({ id, pending: id === ids[3] })));
  });

  it('applies an edit once: replaying it (a retried event) changes nothing', async () => {
    const userId = randomUUID();
    const [account, id] = [randomUUID(), randomUUID()];
    await append(transactionStreamId(id), [manual(id, account, '-10', '2026-11-01', null)], userId);
    await append(transactionStreamId(id), [{ type: 'TransactionEdited', data: { transactionId: id, changes: [{ field: 'amount', oldValue: '-10', newValue: '-25', locked: true }] } }], userId);
    const [, edit] = await store.readStream(transactionStreamId(id));
    await connection.db.transaction().execute((trx) => spendingProjection.apply(trx, [edit]));
    expect(await aggregateRows('spending_daily', userId)).toEqual(aggregatesOf([{ accountId: account, categoryId: null, date: '2026-11-01', amount: -25 }], false));
  });

  it('leaves its rows alone for an edit that moves no money (notes, name), and counts the next one that does', async () => {
    const userId = randomUUID();
    const [account, id] = [randomUUID(), randomUUID()];
    const edit = (field: string, oldValue: string, newValue: string): TransactionEvent => ({ type: 'TransactionEdited', data: { transactionId: id, changes: [{ field: field as 'notes', oldValue, newValue, locked: true }] } });
    await append(transactionStreamId(id), [manual(id, account, '-10', '2026-11-01', null)], userId);
    const stored = () => connection.db.selectFrom('spending_transactions').select(['amount', 'revision']).where('id', '=', id).execute();
    const before = await stored();
    expect(spendingProjection.changedBy?.(edit('notes', 'a', 'b'))).toBe(false);
    await append(transactionStreamId(id), [edit('notes', 'a', 'b'), edit('name', 'x', 'y')], userId);
    expect(await stored()).toEqual(before);
    expect(spendingProjection.changedBy?.(edit('amount', '-10', '-12'))).toBe(true);
    await append(transactionStreamId(id), [edit('amount', '-10', '-12')], userId);
    expect(await aggregateRows('spending_daily', userId)).toEqual(aggregatesOf([{ accountId: account, categoryId: null, date: '2026-11-01', amount: -12 }], false));
  });

  it('counts a side of a transfer nowhere and each part of a split under its own category, until unpaired or cleared', async () => {
    const userId = randomUUID();
    const [checking, savings] = [randomUUID(), randomUUID()];
    const [food, home] = [randomUUID(), randomUUID()];
    const [out, into, shop] = [randomUUID(), randomUUID(), randomUUID()];
    const side = (id: string, other: string, account: string): DomainEvent => ({ type: 'TransferPaired', data: { transactionId: id, counterpart: { transactionId: other, accountId: account }, pairedBy: 'automatic' } });
    await append(transactionStreamId(out), [manual(out, checking, '-500', '2026-11-02', null)], userId);
    await append(transactionStreamId(into), [manual(into, savings, '500', '2026-11-03', null)], userId);
    await append(transactionStreamId(out), [side(out, into, savings)], userId);
    await append(transactionStreamId(into), [side(into, out, checking)], userId);
    const parts = [
      { splitId: randomUUID(), amount: '-70', categoryId: food, notes: null },
      { splitId: randomUUID(), amount: '-30', categoryId: home, notes: 'towels' },
    ];
    await append(transactionStreamId(shop), [manual(shop, checking, '-100', '2026-11-04', food), { type: 'TransactionSplit', data: { transactionId: shop, splits: parts, previousSplits: [] } }], userId);
    const shopParts: Posted[] = [
      { accountId: checking, categoryId: food, date: '2026-11-04', amount: -70 },
      { accountId: checking, categoryId: home, date: '2026-11-04', amount: -30 },
    ];
    expect(await aggregateRows('spending_daily', userId)).toEqual(aggregatesOf(shopParts, false));

    await append(transactionStreamId(out), [{ type: 'TransferUnpaired', data: { transactionId: out, counterpart: { transactionId: into, accountId: savings }, reason: 'user' } }], userId);
    await append(transactionStreamId(shop), [{ type: 'TransactionSplitsCleared', data: { transactionId: shop, reason: 'user', previousSplits: parts } }], userId);
    expect(await aggregateRows('spending_daily', userId)).toEqual(
      aggregatesOf([{ accountId: checking, categoryId: null, date: '2026-11-02', amount: -500 }, { accountId: checking, categoryId: food, date: '2026-11-04', amount: -100 }], false),
    );
  });

  it('parks a transaction it cannot store and goes on with the next ones', async () => {
    const userId = randomUUID();
    const [account, bad, good] = [randomUUID(), randomUUID(), randomUUID()];
    await append(transactionStreamId(bad), [manual(bad, account, 'lots', '2026-11-01', null)], userId);
    await append(transactionStreamId(good), [manual(good, account, '-3', '2026-11-01', null)], userId);
    const parked = (await listParkedEvents(connection.db)).filter((row) => row.stream_id === transactionStreamId(bad));
    expect(parked).toEqual([expect.objectContaining({ projection: 'spending', event_type: 'TransactionCreated', status: 'parked' })]);
    expect(await aggregateRows('spending_daily', userId)).toEqual(aggregatesOf([{ accountId: account, categoryId: null, date: '2026-11-01', amount: -3 }], false));
  });

  // Last: once the rebuilt version is live it supersedes the current one, whose runner then stops.
  it('rebuilds the same tables from the events alone (a new version replays $all)', async () => {
    const keys = { spending_transactions: 'id', spending_daily: 'user_id, day, account_id, category_id', spending_monthly: 'user_id, day, account_id, category_id' };
    for (const { table, original, rebuilt } of await fixture.rebuildBeside(keys)) {
      expect([table, rebuilt.length > 0, rebuilt]).toEqual([table, true, original]);
    }
  });
});
