import type { Selectable } from 'kysely';
import type { TransactionActivityTable } from '../../../../projections/transaction-activity/transaction-activity.table.js';
import type { TransactionActivityEventResponse } from '../http/transaction.responses.js';
import type { ActivityEntry } from './transaction-activity.js';

export type ActivityRow = Pick<Selectable<TransactionActivityTable>, 'id' | 'kind' | 'actor' | 'created_at' | 'field' | 'old_value' | 'new_value' | 'request_id' | 'correlation_id' | 'rule_id'>;

/** A row as the API shows it: `created` has no `oldValue`, `deleted` no `newValue`. */
export function toActivityEventResponse(row: ActivityRow): TransactionActivityEventResponse {
  return {
    id: row.id,
    kind: row.kind,
    actor: row.actor,
    createdAt: row.created_at.toISOString(),
    field: row.field,
    ...(row.kind === 'created' ? {} : { oldValue: row.old_value }),
    ...(row.kind === 'deleted' ? {} : { newValue: row.new_value }),
    requestId: row.request_id,
    correlationId: row.correlation_id,
    ruleId: row.rule_id,
  };
}

/** An entry derived from the stream as the API would show it. */
export function activityEntryAsResponse(entry: ActivityEntry): TransactionActivityEventResponse {
  return {
    id: entry.id,
    kind: entry.kind,
    actor: entry.actor,
    createdAt: new Date(entry.createdAt).toISOString(),
    field: entry.field,
    ...('oldValue' in entry ? { oldValue: entry.oldValue } : {}),
    ...('newValue' in entry ? { newValue: entry.newValue } : {}),
    requestId: entry.requestId,
    correlationId: entry.correlationId,
    ruleId: entry.ruleId,
  };
}
