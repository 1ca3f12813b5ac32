import type { Selectable } from 'kysely';
import type { TransactionsTable } from '../../../../projections/transactions/transactions.table.js';
import { formatPosition, type RecordedEvent } from '../../../core/events.js';
import { type ActivityEntry, type ActivityField, type ActivityKind, activityOfStream } from '../activity/transaction-activity.js';
import { type ActivityRow, activityEntryAsResponse, toActivityEventResponse } from '../activity/transaction-activity.mapper.js';
import type { TransactionState } from '../transaction.js';
import { AUDITED_COLUMNS, canonicalJson, expectedTransactionRow, renderRow } from './expected-transaction-row.js';

export interface AuditedFieldChange {
  readonly field: ActivityField;
  readonly kind: ActivityKind;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** One event of the transaction's stream, as an auditor reads it. */
export interface AuditedEvent {
  readonly revision: number;
  readonly position: string;
  readonly occurredAt: string;
  readonly type: string;
  readonly actor: string;
  readonly requestId: string;
  readonly correlationId: string;
  readonly causationId: string;
  /** The Idempotency-Key of the request that appended it, when it sent one. */
  readonly idempotencyKey?: string;
  /** TransactionReplaced: the posted transaction that retired this pending one. */
  readonly byTransactionId?: string;
  /** TransactionImported: the pending transaction this posted one replaces. */
  readonly replacesTransactionId?: string;
  /** TransactionEdited: the pending transaction whose user values (locked fields, notes, tags) were carried over. */
  readonly carriedFromTransactionId?: string;
  readonly changes: readonly AuditedFieldChange[];
}

/** Where the read model and the stream differ; both sides rendered as JSON (amounts as plain decimals). */
export interface Disagreement {
  readonly where: string;
  readonly stream: string;
  readonly readModel: string;
}

export interface TransactionAudit {
  readonly transactionId: string;
  readonly userId: string;
  readonly streamId: string;
  /** What the stream says the transaction is now; `live` but `leftWithAccount`: its account was deleted or disconnected. */
  readonly status: TransactionState['status'];
  readonly leftWithAccount: boolean;
  readonly events: readonly AuditedEvent[];
  readonly agrees: boolean;
  readonly disagreements: readonly Disagreement[];
}

/** What the read models hold for the transaction: its row (null when absent) and its activity rows in order. */
export interface ReadModelView {
  readonly row: Selectable<TransactionsTable> | null;
  readonly activity: readonly (ActivityRow & { revision: number; ordinal: number })[];
}

/** The audit of one stream against the read models; pure, so every disagreement it can name has a spec. */
export function auditTransaction(history: readonly RecordedEvent[], state: TransactionState, leftWithAccount: boolean, readModel: ReadModelView): TransactionAudit {
  const first = history[0];
  const expectedActivity = activityOfStream(history);
  const disagreements = [...compareRow(history, state, leftWithAccount, readModel.row), ...compareActivity(expectedActivity, readModel.activity)];
  return {
    transactionId: (first.data as { transactionId: string }).transactionId,
    userId: first.metadata.userId,
    streamId: first.streamId,
    status: state.status,
    leftWithAccount,
    events: history.map((recorded) => auditedEvent(recorded, expectedActivity)),
    agrees: disagreements.length === 0,
    disagreements,
  };
}

function auditedEvent(recorded: RecordedEvent, activity: readonly ActivityEntry[]): AuditedEvent {
  const revision = Number(recorded.revision);
  const { metadata } = recorded;
  return {
    revision,
    position: formatPosition(recorded.position),
    occurredAt: metadata.occurredAt,
    type: recorded.type,
    actor: metadata.actor,
    requestId: metadata.requestId,
    correlationId: metadata.correlationId,
    causationId: metadata.causationId,
    ...(metadata.idempotencyKey === undefined ? {} : { idempotencyKey: metadata.idempotencyKey }),
    ...transactionsNamedBy(recorded),
    changes: activity
      .filter((entry) => entry.revision === revision)
      .map((entry) => ({ field: entry.field, kind: entry.kind, ...('oldValue' in entry ? { before: entry.oldValue } : {}), ...('newValue' in entry ? { after: entry.newValue } : {}) })),
  };
}

/** The other transactions an event points at: the one that replaced it, the one it replaces, the one whose values it carries. */
function transactionsNamedBy(recorded: RecordedEvent): Pick<AuditedEvent, 'byTransactionId' | 'replacesTransactionId' | 'carriedFromTransactionId'> {
  const data = recorded.data as { byTransactionId?: unknown; replacesTransactionId?: unknown; carriedFromTransactionId?: unknown };
  if (recorded.type === 'TransactionReplaced' && typeof data.byTransactionId === 'string') return { byTransactionId: data.byTransactionId };
  if (recorded.type === 'TransactionImported' && typeof data.replacesTransactionId === 'string') return { replacesTransactionId: data.replacesTransactionId };
  if (recorded.type === 'TransactionEdited' && typeof data.carriedFromTransactionId === 'string') return { carriedFromTransactionId: data.carriedFromTransactionId };
  return {};
}

function compareRow(history: readonly RecordedEvent[], state: TransactionState, leftWithAccount: boolean, row: Selectable<TransactionsTable> | null): Disagreement[] {
  const expected = leftWithAccount ? null : expectedTransactionRow(history, state);
  if (!expected && !row) return [];
  if (!expected) return [{ where: 'transactions', stream: `no row (${leftWithAccount ? 'its account left' : state.status})`, readModel: 'a row' }];
  if (!row) return [{ where: 'transactions', stream: 'a row (live)', readModel: 'no row' }];
  const actual = renderRow(row);
  return AUDITED_COLUMNS.filter((column) => expected[column] !== actual[column]).map((column) => ({ where: `transactions.${column}`, stream: expected[column], readModel: actual[column] }));
}

const ACTIVITY_KEYS = ['kind', 'field', 'oldValue', 'newValue', 'actor', 'createdAt', 'requestId', 'correlationId', 'place'] as const;

function compareActivity(expected: readonly ActivityEntry[], rows: ReadModelView['activity']): Disagreement[] {
  const actual = new Map(rows.map((row) => [row.id, { ...toActivityEventResponse(row), place: `${row.revision}/${row.ordinal}` }]));
  const disagreements: Disagreement[] = [];
  for (const entry of expected) {
    const want: Record<string, unknown> = { ...activityEntryAsResponse(entry), place: `${entry.revision}/${entry.ordinal}` };
    const have = actual.get(entry.id) as Record<string, unknown> | undefined;
    actual.delete(entry.id);
    if (!have) {
      disagreements.push({ where: `transaction_activity[${entry.id}]`, stream: describeEntry(want), readModel: 'no row' });
      continue;
    }
    for (const key of ACTIVITY_KEYS) {
      const [wanted, found] = [rendered(want, key), rendered(have, key)];
      if (wanted !== found) disagreements.push({ where: `transaction_activity[${entry.id}].${key}`, stream: wanted, readModel: found });
    }
  }
  for (const [id, row] of actual) disagreements.push({ where: `transaction_activity[${id}]`, stream: 'no entry', readModel: describeEntry(row as Record<string, unknown>) });
  return disagreements;
}

function rendered(entry: Record<string, unknown>, key: string): string {
  return key in entry ? canonicalJson(entry[key]) : '(none)';
}

function describeEntry(entry: Record<string, unknown>): string {
  return `${String(entry.kind)} ${String(entry.field)}`;
}
