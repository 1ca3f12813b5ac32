import { unhandled } from '../../src/core/exhaustive.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { RECURRING_STREAMS_EVENT_TYPES, RECURRING_STREAMS_STREAM_PREFIX, type RecurringStreamsEvent } from '../../src/modules/insights/recurring/recurring-streams.js';
import { createRecurringTables } from './recurring.table.js';

/**
 * `recurring`: the streams recurring-stream detection recorded per user, what `GET /recurring`
 * lists. Account, institution and category fields are joined when read, so a rename shows at
 * once and a deleted account's streams leave the list at once (decision 0018).
 */
export const recurringProjection: ProjectionDefinition = {
  name: 'recurring',
  version: 1,
  tables: ['recurring_streams'],
  eventTypes: RECURRING_STREAMS_EVENT_TYPES,
  createTables: createRecurringTables,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<RecurringStreamsEvent>[]) {
      if (!recorded.streamId.startsWith(RECURRING_STREAMS_STREAM_PREFIX)) continue;
      const event = { type: recorded.type, data: recorded.data } as RecurringStreamsEvent;
      const revision = Number(recorded.revision);
      const at = new Date(recorded.metadata.occurredAt);
      switch (event.type) {
        case 'RecurringStreamUpdated': {
          const stream = event.data;
          const values = {
            account_id: stream.accountId,
            stream_type: stream.streamType,
            frequency: stream.frequency,
            status: stream.status,
            average_amount: stream.averageAmount,
            last_amount: stream.lastAmount,
            first_date: stream.firstDate,
            last_date: stream.lastDate,
            predicted_next_date: stream.predictedNextDate,
            active_until: stream.activeUntil,
            transaction_ids: [...stream.transactionIds],
            merchant_name: stream.merchantName,
            description: stream.description,
            category_id: stream.categoryId,
            updated_at: at,
            revision,
          };
          await trx
            .insertInto('recurring_streams')
            .values({ id: stream.recurringStreamId, user_id: recorded.metadata.userId, ...values })
            .onConflict((conflict) => conflict.column('id').doUpdateSet(values).where('recurring_streams.revision', '<', revision))
            .execute();
          break;
        }
        case 'RecurringStreamTombstoned':
          await trx
            .updateTable('recurring_streams')
            .set({ status: 'TOMBSTONED', predicted_next_date: null, active_until: null, updated_at: at, revision })
            .where('id', '=', event.data.recurringStreamId)
            .where('user_id', '=', recorded.metadata.userId)
            .where('revision', '<', revision)
            .execute();
          break;
        default:
          unhandled(event);
      }
    }
  },
};
