import type { RecordedEvent } from '../../core/events.js';
import { projectionChangedBy } from '../../infrastructure/projections/projection.js';
import { rulesOnNewTransactionsReaction } from './rules-on-new-transactions.reaction.js';

function recorded(type: string, data: Record<string, unknown>, metadata: { actor: 'user' | 'system'; ruleId?: string }): RecordedEvent {
  return {
    id: 'e1',
    streamId: 'transaction-t1',
    revision: 1n,
    position: { commit: 1n, prepare: 1n },
    type,
    data: { transactionId: 't1', ...data },
    metadata: { userId: 'u1', requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-20T00:00:00.000Z', schemaVersion: 1, ...metadata },
  };
}

const asks = (event: RecordedEvent) => projectionChangedBy(rulesOnNewTransactionsReaction, event);

describe('rules on new transactions: what asks for a run', () => {
  it('every new transaction, made by a user or a system', () => {
    expect(asks(recorded('TransactionCreated', {}, { actor: 'user' }))).toBe(true);
    expect(asks(recorded('TransactionCreated', {}, { actor: 'system' }))).toBe(true);
    expect(asks(recorded('TransactionImported', {}, { actor: 'system' }))).toBe(true);
  });

  it('a sync’s modification, but not a rule’s own change, a user’s edit or a carried-over edit', () => {
    const provider = { name: 'STARBUCKS' };
    expect(asks(recorded('TransactionEdited', { changes: [], provider }, { actor: 'system' }))).toBe(true);
    expect(asks(recorded('TransactionEdited', { changes: [] }, { actor: 'system', ruleId: 'rule-1' }))).toBe(false);
    expect(asks(recorded('TransactionEdited', { changes: [] }, { actor: 'user' }))).toBe(false);
    expect(asks(recorded('TransactionEdited', { changes: [], carriedFromTransactionId: 't0' }, { actor: 'system' }))).toBe(false);
  });

  it('no tag change, deletion or other event', () => {
    expect(asks(recorded('TagRemoved', { tagIds: ['a'], resultingTagIds: [], locked: false }, { actor: 'system' }))).toBe(false);
    expect(asks(recorded('TransactionDeleted', { accountId: 'a1' }, { actor: 'user' }))).toBe(false);
  });
});
