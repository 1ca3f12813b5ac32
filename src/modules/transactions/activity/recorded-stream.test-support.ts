import type { Actor, RecordedEvent } from '../../../core/events.js';
import type { TransactionCreated, TransactionEvent } from '../transaction.js';

export interface RecordedAs {
  readonly actor?: Actor;
  readonly requestId?: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly idempotencyKey?: string;
}

/** Events as a transaction's stream would hold them: revisions from 0, positions rising, a minute apart. */
export function recordedStream(transactionId: string, events: readonly (TransactionEvent | [TransactionEvent, RecordedAs])[]): RecordedEvent[] {
  return events.map((item, index) => {
    const [event, as] = Array.isArray(item) ? item : [item, {}];
    const requestId = as.requestId ?? `req-${index}`;
    return {
      id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      streamId: `transaction-${transactionId}`,
      revision: BigInt(index),
      position: { commit: 100n + BigInt(index), prepare: 1000n + BigInt(index) },
      type: event.type,
      data: event.data,
      metadata: {
        userId: 'user-1',
        actor: as.actor ?? 'user',
        requestId,
        correlationId: as.correlationId ?? requestId,
        causationId: as.causationId ?? requestId,
        occurredAt: new Date(Date.UTC(2026, 10, 23, 12, index)).toISOString(),
        schemaVersion: 1,
        ...(as.idempotencyKey === undefined ? {} : { idempotencyKey: as.idempotencyKey }),
      },
    };
  });
}

/** A manual transaction `tx-1` as created by hand: a café purchase with nothing optional set but what `values` gives. */
export function manualTransactionCreated(values: Partial<TransactionCreated['data']> = {}): TransactionCreated {
  return {
    type: 'TransactionCreated',
    data: {
      transactionId: 'tx-1',
      accountId: 'acct-1',
      source: 'manual',
      pending: false,
      authorizedDate: null,
      name: 'Corner Cafe',
      merchantName: null,
      amount: '-12.5',
      date: '2026-11-20',
      categoryId: null,
      notes: null,
      paymentChannel: null,
      location: null,
      tagIds: [],
      ...values,
    },
  };
}
