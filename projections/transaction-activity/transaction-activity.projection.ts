import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { type FieldChange, LOCKED_FIELD_OF, type TagApplied, type TagRemoved, TRANSACTION_STREAM_PREFIX, type TransactionEdited } from '../../src/modules/transactions/transaction.js';
import { createTransactionActivityTable } from './transaction-activity.table.js';

/**
 * `transaction_activity`: the field-change history auditors replay — one row per changed field
 * per edit, oldest first (a tag applied or removed is a change of `tags`). A write that only locks
 * a field (same value) changes nothing visible.
 */
export const transactionActivityProjection: ProjectionDefinition = {
  name: 'transaction-activity',
  version: 1,
  tables: ['transaction_activity'],
  eventTypes: ['TransactionEdited', 'TagApplied', 'TagRemoved'],
  createTables: createTransactionActivityTable,
  async apply(trx, events) {
    const rows = events
      .filter((recorded) => recorded.streamId.startsWith(TRANSACTION_STREAM_PREFIX) && ACTIVITY_EVENT_TYPES.has(recorded.type))
      .map(asFieldChanges)
      .flatMap((recorded) => {
        const { data, metadata, id } = recorded;
        return data.changes
          .filter((change) => JSON.stringify(change.oldValue) !== JSON.stringify(change.newValue))
          .map((change) => ({
            id: `${id}:${change.field}`,
            user_id: metadata.userId,
            transaction_id: data.transactionId,
            actor: metadata.actor,
            created_at: new Date(metadata.occurredAt),
            field: LOCKED_FIELD_OF[change.field],
            old_value: JSON.stringify(asApiValue(change.field, change.oldValue)),
            new_value: JSON.stringify(asApiValue(change.field, change.newValue)),
          }));
      });
    if (rows.length > 0) await trx.insertInto('transaction_activity').values(rows).onConflict((conflict) => conflict.column('id').doNothing()).execute();
  },
};

const ACTIVITY_EVENT_TYPES = new Set(['TransactionEdited', 'TagApplied', 'TagRemoved']);

/** A tag change reads as a change of the `tags` field: the set before, the set after. */
function asFieldChanges(recorded: RecordedEvent): RecordedEvent<TransactionEdited> {
  if (recorded.type === 'TransactionEdited') return recorded as RecordedEvent<TransactionEdited>;
  const { data } = recorded as RecordedEvent<TagApplied | TagRemoved>;
  const before = recorded.type === 'TagApplied' ? data.resultingTagIds.filter((tagId) => !data.tagIds.includes(tagId)) : [...data.resultingTagIds, ...data.tagIds].sort();
  const change: FieldChange = { field: 'tagIds', oldValue: before, newValue: data.resultingTagIds, locked: data.locked };
  return { ...recorded, type: 'TransactionEdited', data: { transactionId: data.transactionId, changes: [change] } };
}

/** Amounts are decimal strings inside events and numbers in the API. */
function asApiValue(field: string, value: unknown): unknown {
  return field === 'amount' && typeof value === 'string' ? Number(value) : value;
}
