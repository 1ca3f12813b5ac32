import type { Selectable } from 'kysely';
import type { TransactionsTable } from '../../../../projections/transactions/transactions.table.js';
import type { RecordedEvent } from '../../../core/events.js';
import { counterpartyRowOf, type TransactionImported } from '../imported-transaction.js';
import { LOCKED_FIELD_OF, type TransactionCreated, type TransactionState } from '../transaction.js';

/** The `transactions` columns an audit compares: all of them. */
export const AUDITED_COLUMNS = [
  'id',
  'user_id',
  'account_id',
  'source',
  'amount',
  'date',
  'authorized_date',
  'name',
  'merchant_name',
  'category_id',
  'notes',
  'payment_channel',
  'pending',
  'location',
  'counterparties',
  'tag_ids',
  'locked_fields',
  'link_account_id',
  'logo_url',
  'website',
  'transfer_transaction_id',
  'transfer_account_id',
  'splits',
  'created_at',
  'updated_at',
  'revision',
] as const satisfies readonly (keyof TransactionsTable)[];
export type AuditedColumn = (typeof AUDITED_COLUMNS)[number];

/** Each column rendered so that equal values render equally: decimals without trailing zeros, JSON with sorted keys. */
export type RenderedRow = Record<AuditedColumn, string>;

/**
 * The row the transactions read model should hold for a live transaction, from its own stream:
 * the folded state for what edits change, the creation event for what only creation says, and
 * the last event for the row's revision and update time (every event after creation updates it).
 */
export function expectedTransactionRow(history: readonly RecordedEvent[], state: TransactionState): RenderedRow | null {
  if (state.status !== 'live' || !state.current || !state.accountId || history.length === 0) return null;
  const creation = history[0];
  const last = history[history.length - 1];
  const imported = creation.type === 'TransactionImported' ? (creation as RecordedEvent<TransactionImported>).data : null;
  const created = creation.type === 'TransactionCreated' ? (creation as RecordedEvent<TransactionCreated>).data : null;
  const provider = state.provider;
  const current = state.current;
  return renderRow({
    id: (creation.data as { transactionId: string }).transactionId,
    user_id: creation.metadata.userId,
    account_id: state.accountId,
    source: state.source,
    amount: current.amount,
    date: current.date,
    authorized_date: provider ? provider.authorizedDate : (created?.authorizedDate ?? null),
    name: current.name,
    merchant_name: current.merchantName,
    category_id: current.categoryId,
    notes: current.notes,
    payment_channel: current.paymentChannel,
    pending: provider ? provider.pending : (created?.pending ?? false),
    location: current.location,
    counterparties: provider ? provider.counterparties.map(counterpartyRowOf) : null,
    tag_ids: current.tagIds,
    locked_fields: [...state.locked].map((field) => LOCKED_FIELD_OF[field]).sort(),
    link_account_id: imported?.linkAccountId ?? null,
    logo_url: provider?.logoUrl ?? null,
    website: provider?.website ?? null,
    transfer_transaction_id: state.transfer?.transactionId ?? null,
    transfer_account_id: state.transfer?.accountId ?? null,
    splits: state.splits.map((part) => ({ id: part.splitId, amount: part.amount, category_id: part.categoryId, notes: part.notes })),
    created_at: new Date(creation.metadata.occurredAt),
    updated_at: new Date(last.metadata.occurredAt),
    revision: Number(last.revision),
  });
}

export function renderRow(row: Record<AuditedColumn, unknown> | Selectable<TransactionsTable>): RenderedRow {
  const source = row as Record<AuditedColumn, unknown>;
  return Object.fromEntries(AUDITED_COLUMNS.map((column) => [column, renderValue(column, source[column])])) as RenderedRow;
}

function renderValue(column: AuditedColumn, value: unknown): string {
  if (column === 'amount' && (typeof value === 'string' || typeof value === 'number')) return normalizeDecimal(String(value));
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'string' && (column === 'created_at' || column === 'updated_at')) return JSON.stringify(new Date(value).toISOString());
  return canonicalJson(value ?? null);
}

/** `-12.5000` → `-12.5`, `13.0000` → `13`: the same number, written one way. */
export function normalizeDecimal(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) return text;
  const whole = match[2].replace(/^0+(?=\d)/, '');
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  const sign = match[1] && (whole !== '0' || fraction !== '') ? '-' : '';
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** JSON with object keys sorted (jsonb does not keep the order they were written in). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
