import { sql, type Transaction } from 'kysely';
import type { RecordedEvent } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import {
  ACTIVITY_EVENT_TYPES,
  type ActivityEntry,
  type ActivityField,
  type ApiValues,
  creationEntries,
  departureEntries,
  editEntries,
  isCreation,
  isDeparture,
} from '../../src/modules/transactions/activity/transaction-activity.js';
import { EDITABLE_FIELDS, LOCKED_FIELD_OF, type LockedField, TRANSACTION_STREAM_PREFIX } from '../../src/modules/transactions/transaction.js';
import { createTransactionActivityTable } from './transaction-activity.table.js';

/**
 * `transaction_activity`: the field-change history auditors replay — creation (one `created` row per
 * field with a value), every change (one `edited` row per changed field; a tag applied or removed
 * is a change of `tags`), and departure (deleted, removed by the provider or retired for its posted
 * one: one `deleted` row per field that had a value, found in the transaction's own rows).
 */
export const transactionActivityProjection: ProjectionDefinition = {
  name: 'transaction-activity',
  // v2: creation and departure entries, `kind`, request and correlation ids; rows numbered from the events.
  // v3: `rule_id`, the rule whose change it is (decision 0042).
  version: 3,
  // Inline: written in the transaction of every append, so a write's answer is built from it (decision 0033).
  mode: 'inline',
  tables: ['transaction_activity'],
  eventTypes: ACTIVITY_EVENT_TYPES,
  createTables: createTransactionActivityTable,
  async apply(trx, events) {
    const ours = events.filter((recorded) => recorded.streamId.startsWith(TRANSACTION_STREAM_PREFIX) && ACTIVITY_EVENT_TYPES.includes(recorded.type));
    const leaving = new Set(ours.filter((recorded) => isDeparture(recorded.type)).map(transactionIdOf));
    // Only transactions that leave in this batch need their last values; the batch's own rows update them as it goes.
    const histories = await lastValuesOf(trx, [...leaving]);
    const entries: ActivityEntry[] = [];
    for (const recorded of ours) {
      const transactionId = transactionIdOf(recorded);
      const history = histories.get(transactionId);
      if (isDeparture(recorded.type)) {
        if (!history || history.left) continue;
        const departed = departureEntries(recorded, inFieldOrder(history.values));
        entries.push(...departed);
        history.left = true;
        continue;
      }
      const produced = isCreation(recorded.type) ? creationEntries(recorded) : editEntries(recorded);
      entries.push(...produced);
      if (history) {
        if (isCreation(recorded.type)) {
          history.values.clear();
          history.left = false;
        }
        for (const entry of produced) history.values.set(entry.field, entry.newValue);
      }
    }
    await insertEntries(trx, entries);
  },
};

interface TransactionHistory {
  /** Departure entries name only the editable fields among these. */
  readonly values: Map<ActivityField, unknown>;
  /** Its departure is already recorded: a second one (removed, then retired) records nothing. */
  left: boolean;
}

const FIELD_ORDER: readonly LockedField[] = EDITABLE_FIELDS.map((field) => LOCKED_FIELD_OF[field]);

function inFieldOrder(values: ReadonlyMap<ActivityField, unknown>): ApiValues {
  return new Map(FIELD_ORDER.filter((field) => values.has(field)).map((field) => [field, values.get(field)]));
}

function transactionIdOf(recorded: RecordedEvent): string {
  return (recorded.data as { transactionId: string }).transactionId;
}

/** Each transaction's latest value of every field from its rows so far, and whether it has left already. */
async function lastValuesOf(trx: Transaction<Database>, transactionIds: readonly string[]): Promise<Map<string, TransactionHistory>> {
  const histories = new Map<string, TransactionHistory>(transactionIds.map((id) => [id, { values: new Map(), left: false }]));
  if (transactionIds.length === 0) return histories;
  const latest = await trx
    .selectFrom('transaction_activity')
    .distinctOn(['transaction_id', 'field'])
    .select(['transaction_id', 'field', 'kind', 'new_value'])
    .where('transaction_id', 'in', transactionIds)
    .orderBy('transaction_id')
    .orderBy('field')
    .orderBy('revision', 'desc')
    .orderBy('ordinal', 'desc')
    .execute();
  for (const row of latest) {
    const history = histories.get(row.transaction_id) as TransactionHistory;
    if (row.kind === 'deleted') history.left = true;
    else history.values.set(row.field as ActivityField, row.new_value);
  }
  return histories;
}

/**
 * One JSON document, not a VALUES list: a batch of creations writes thousands of rows, past the
 * 65,535 parameters a statement may bind. Each value travels wrapped (`{"v": ...}`) so a JSON null
 * stays a JSON null and a missing one (creation's before, departure's after) is SQL NULL.
 */
async function insertEntries(trx: Transaction<Database>, entries: readonly ActivityEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((entry) => ({
    id: entry.id,
    user_id: entry.userId,
    transaction_id: entry.transactionId,
    revision: entry.revision,
    ordinal: entry.ordinal,
    kind: entry.kind,
    actor: entry.actor,
    created_at: entry.createdAt,
    field: entry.field,
    old_value: 'oldValue' in entry ? { v: entry.oldValue } : null,
    new_value: 'newValue' in entry ? { v: entry.newValue } : null,
    request_id: entry.requestId,
    correlation_id: entry.correlationId,
    rule_id: entry.ruleId,
  }));
  await sql`
    INSERT INTO transaction_activity (id, user_id, transaction_id, revision, ordinal, kind, actor, created_at, field, old_value, new_value, request_id, correlation_id, rule_id)
    SELECT r.id, r.user_id, r.transaction_id, r.revision, r.ordinal, r.kind, r.actor, r.created_at, r.field, r.old_value -> 'v', r.new_value -> 'v', r.request_id, r.correlation_id, r.rule_id
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(
        id text, user_id uuid, transaction_id uuid, revision bigint, ordinal int, kind text, actor text, created_at timestamptz, field text,
        old_value jsonb, new_value jsonb, request_id text, correlation_id text, rule_id text)
    ON CONFLICT (id) DO NOTHING`.execute(trx);
}
