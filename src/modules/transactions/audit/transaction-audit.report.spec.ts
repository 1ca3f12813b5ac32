import type { Selectable } from 'kysely';
import type { TransactionsTable } from '../../../../projections/transactions/transactions.table.js';
import { foldOwnStream } from '../../../core/decider.js';
import { manualTransactionCreated, recordedStream } from '../activity/recorded-stream.test-support.js';
import { activityOfStream } from '../activity/transaction-activity.js';
import type { TransactionEvent } from '../transaction.js';
import { transactionDecider } from '../transaction.decider.js';
import { normalizeDecimal } from './expected-transaction-row.js';
import { AGREES, formatAuditJson, formatAuditText } from './transaction-audit.format.js';
import { nameAudit, namedIdsOf } from './transaction-audit.names.js';
import { auditTransaction, type ReadModelView } from './transaction-audit.report.js';

const created = manualTransactionCreated({
  location: { address: null, city: 'Lisbon', country: null, postal_code: null, region: null, store_number: null, lat: 38.72, lon: null },
});
const edited: TransactionEvent = { type: 'TransactionEdited', data: { transactionId: 'tx-1', changes: [{ field: 'amount', oldValue: '-12.5', newValue: '-13', locked: true }] } };
const tagged: TransactionEvent = { type: 'TagApplied', data: { transactionId: 'tx-1', tagIds: ['tag-a'], resultingTagIds: ['tag-a'], locked: true } };
const deleted: TransactionEvent = { type: 'TransactionDeleted', data: { transactionId: 'tx-1', accountId: 'acct-1' } };

/** What the read models would hold for the stream, in their own representation (numeric with four decimals, jsonb's key order). */
function readModelOf(history: ReturnType<typeof recordedStream>, live: boolean): { row: Selectable<TransactionsTable> | null; activity: ReadModelView['activity'] } {
  const activity = activityOfStream(history).map((entry) => ({
    id: entry.id,
    kind: entry.kind,
    actor: entry.actor,
    created_at: new Date(entry.createdAt),
    field: entry.field,
    old_value: entry.oldValue ?? null,
    new_value: entry.newValue ?? null,
    request_id: entry.requestId,
    correlation_id: entry.correlationId,
    rule_id: entry.ruleId,
    revision: entry.revision,
    ordinal: entry.ordinal,
  }));
  const last = history[history.length - 1];
  const row: Selectable<TransactionsTable> = {
    id: 'tx-1',
    user_id: 'user-1',
    account_id: 'acct-1',
    source: 'manual',
    amount: '-13.0000',
    date: '2026-11-20',
    authorized_date: null,
    name: 'Corner Cafe',
    merchant_name: null,
    category_id: null,
    notes: null,
    payment_channel: null,
    pending: false,
    location: { lat: 38.72, lon: null, city: 'Lisbon', region: null, address: null, country: null, postal_code: null, store_number: null },
    counterparties: null,
    tag_ids: ['tag-a'],
    locked_fields: ['amount', 'tags'],
    link_account_id: null,
    logo_url: null,
    website: null,
    transfer_transaction_id: null,
    transfer_account_id: null,
    splits: [],
    created_at: new Date(history[0].metadata.occurredAt),
    updated_at: new Date(last.metadata.occurredAt),
    revision: Number(last.revision),
  };
  return { row: live ? row : null, activity };
}

const audit = (history: ReturnType<typeof recordedStream>, readModel: ReadModelView) => auditTransaction(history, foldOwnStream(transactionDecider, history, 'user-1'), false, readModel);
const unnamed = (report: ReturnType<typeof audit>) => nameAudit(report, { user: null, categories: new Map(), tags: new Map() });

describe('auditing a transaction stream against the read models', () => {
  const live = recordedStream('tx-1', [created, [edited, { correlationId: 'checkout-7', idempotencyKey: 'edit-7' }], tagged]);

  it('agrees when the row and the activity are what the stream says, whatever their representation', () => {
    const result = audit(live, readModelOf(live, true));
    expect(result.disagreements).toEqual([]);
    expect(result.agrees).toBe(true);
    expect(result.events.map((event) => [event.revision, event.type, event.changes.length])).toEqual([
      [0, 'TransactionCreated', 4],
      [1, 'TransactionEdited', 1],
      [2, 'TagApplied', 1],
    ]);
    expect(result.events[1]).toMatchObject({ correlationId: 'checkout-7', idempotencyKey: 'edit-7', causationId: 'req-1', changes: [{ field: 'amount', kind: 'edited', before: -12.5, after: -13 }] });
    expect(result.events[0]).not.toHaveProperty('idempotencyKey');
  });

  it('names each column that differs, with both values', () => {
    const readModel = readModelOf(live, true);
    const tampered = { ...readModel, row: { ...(readModel.row as Selectable<TransactionsTable>), amount: '-13.5000', tag_ids: [] } };
    expect(audit(live, tampered).disagreements).toEqual([
      { where: 'transactions.amount', stream: '-13', readModel: '-13.5' },
      { where: 'transactions.tag_ids', stream: '["tag-a"]', readModel: '[]' },
    ]);
  });

  it('names a changed, a missing and an extra activity row', () => {
    const readModel = readModelOf(live, true);
    const [first, second, ...rest] = readModel.activity;
    const activity = [{ ...first, new_value: 'Corner Caff' }, ...rest, { ...second, id: 'stray:notes', field: 'notes' }];
    expect(audit(live, { ...readModel, activity }).disagreements).toEqual([
      { where: `transaction_activity[${first.id}].newValue`, stream: '"Corner Cafe"', readModel: '"Corner Caff"' },
      { where: `transaction_activity[${second.id}]`, stream: 'created amount', readModel: 'no row' },
      { where: 'transaction_activity[stray:notes]', stream: 'no entry', readModel: 'created notes' },
    ]);
  });

  it('expects no row once the transaction is deleted, and its departure in the activity', () => {
    const gone = recordedStream('tx-1', [created, edited, tagged, deleted]);
    expect(audit(gone, readModelOf(gone, false)).agrees).toBe(true);
    expect(audit(gone, { ...readModelOf(gone, false), row: readModelOf(live, true).row }).disagreements).toEqual([{ where: 'transactions', stream: 'no row (deleted)', readModel: 'a row' }]);
    expect(audit(gone, readModelOf(gone, false)).events[3].changes.map((change) => [change.kind, change.field, change.before])).toEqual([
      ['deleted', 'name', 'Corner Cafe'],
      ['deleted', 'amount', -13],
      ['deleted', 'date', '2026-11-20'],
      ['deleted', 'location', created.data.location],
      ['deleted', 'tags', ['tag-a']],
    ]);
  });

  it('says plainly whether they agree, in text and in JSON', () => {
    const agreeing = unnamed(audit(live, readModelOf(live, true)));
    const text = formatAuditText(agreeing);
    expect(text).toContain('#1  2026-11-23T12:01:00.000Z  TransactionEdited  (position 101/1001)');
    expect(text).toContain('    actor user · request req-1 · correlation checkout-7 · causation req-1');
    expect(text).toContain('    amount  -12.5 → -13');
    expect(text).toContain('    name      — → "Corner Cafe"');
    expect(text.endsWith(AGREES)).toBe(true);
    const readModel = readModelOf(live, true);
    const disagreeing = unnamed(audit(live, { ...readModel, row: { ...(readModel.row as Selectable<TransactionsTable>), amount: '-13.5' } }));
    expect(formatAuditText(disagreeing).split('\n').slice(-2)).toEqual(['Read model DISAGREES with the event stream (1):', '  transactions.amount: stream -13, read model -13.5']);
    expect(JSON.parse(formatAuditJson(disagreeing))).toMatchObject({ agrees: false, disagreements: [{ where: 'transactions.amount' }], events: [{ revision: 0 }, { revision: 1 }, { revision: 2 }] });
  });

  it('names the user, the categories and the tags beside their ids, in text and in JSON (an id it cannot name: unknown)', () => {
    const categorised: TransactionEvent = { type: 'TransactionEdited', data: { transactionId: 'tx-1', changes: [{ field: 'categoryId', oldValue: null, newValue: 'cat-1', locked: true }] } };
    const retagged: TransactionEvent = { type: 'TagApplied', data: { transactionId: 'tx-1', tagIds: ['tag-b'], resultingTagIds: ['tag-a', 'tag-b'], locked: true } };
    const history = recordedStream('tx-1', [created, tagged, categorised, retagged]);
    const named = nameAudit(audit(history, readModelOf(history, true)), {
      user: { email: 'sam@example.com', name: 'Sam' },
      categories: new Map([['cat-1', 'Coffee Shops']]),
      tags: new Map([['tag-a', 'Work']]),
    });
    expect(named.user).toEqual({ id: 'user-1', email: 'sam@example.com', name: 'Sam' });
    expect(named.events[2]!.changes).toEqual([{ field: 'category', kind: 'edited', before: null, after: 'cat-1', afterName: 'Coffee Shops' }]);
    expect(named.events[3]!.changes).toEqual([{ field: 'tags', kind: 'edited', before: ['tag-a'], after: ['tag-a', 'tag-b'], beforeName: ['Work'], afterName: ['Work', null] }]);
    const text = formatAuditText(named);
    expect(text.split('\n')[0]).toBe('Transaction tx-1 of user user-1 (sam@example.com, Sam): stream transaction-tx-1, 4 events');
    expect(text).toContain('    category  null → "cat-1" (Coffee Shops)');
    expect(text).toContain('    tags  ["tag-a" (Work)] → ["tag-a" (Work), "tag-b" (unknown)]');
    expect(JSON.parse(formatAuditJson(named)).user).toEqual({ id: 'user-1', email: 'sam@example.com', name: 'Sam' });
    expect(namedIdsOf(audit(history, readModelOf(history, true)))).toEqual({ categories: ['cat-1'], tags: ['tag-a', 'tag-b'] });
  });

  it('names the transaction that replaced a pending one (byTransactionId), in text and in JSON', () => {
    const replaced: TransactionEvent = { type: 'TransactionReplaced', data: { transactionId: 'tx-1', accountId: 'acct-1', byTransactionId: 'tx-2' } };
    const history = recordedStream('tx-1', [created, replaced]);
    const named = unnamed(audit(history, readModelOf(history, false)));
    expect(named.events[1]).toMatchObject({ type: 'TransactionReplaced', byTransactionId: 'tx-2' });
    expect(named.events[0]).not.toHaveProperty('byTransactionId');
    expect(formatAuditText(named)).toContain('    replaced by transaction tx-2 (its posted transaction)');
    expect(JSON.parse(formatAuditJson(named)).events[1].byTransactionId).toBe('tx-2');
  });

  it('writes a decimal one way', () => {
    expect(['-12.5000', '13.0000', '0.0000', '-0.0000', '007.10', '12'].map(normalizeDecimal)).toEqual(['-12.5', '13', '0', '0', '7.1', '12']);
  });
});
