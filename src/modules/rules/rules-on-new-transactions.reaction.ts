import type { DomainEvent, RecordedEvent } from '../../core/events.js';
import { causeOf, reaction, traceOf } from '../../infrastructure/projections/reaction.js';
import type { TransactionEdited } from '../transactions/transaction.js';
import { RULES_ON_NEW_TRANSACTIONS_JOB, type RulesOnNewTransactionsInput, rulesOnNewTransactionsJobId } from './rules-on-new-transactions.job.js';
import { usersWithRules } from './rules.store.js';

/**
 * Rules run on every new transaction — created by hand or by a statement import, imported by a
 * sync — and on every provider modification: a reaction on the feed, not code in each write path
 * (decision 0042). A rule's own change (its `ruleId` in the metadata) and the user's edits ask for
 * nothing. Users without rules get no job.
 */
export const rulesOnNewTransactionsReaction = reaction({
  name: 'rules-on-new-transactions',
  version: 1,
  eventTypes: ['TransactionCreated', 'TransactionImported', 'TransactionEdited'],
  reactsTo: (event) => event.type !== 'TransactionEdited' || isProviderModification(event),
  async jobsFor(events, db) {
    const withRules = await usersWithRules(
      db,
      events.map((event) => event.metadata.userId),
    );
    const byUser = new Map<string, RecordedEvent[]>();
    for (const event of events) {
      if (withRules.has(event.metadata.userId)) byUser.set(event.metadata.userId, [...(byUser.get(event.metadata.userId) ?? []), event]);
    }
    return [...byUser].map(([userId, asking]) => {
      const first = asking[0];
      const transactionIds = [...new Set(asking.map((event) => (event.data as { transactionId: string }).transactionId))];
      const input: RulesOnNewTransactionsInput = { userId, transactionIds, requestId: first.metadata.requestId, trace: traceOf(first) };
      return { name: RULES_ON_NEW_TRANSACTIONS_JOB, input, jobId: rulesOnNewTransactionsJobId(first.id, userId), cause: causeOf(first) };
    });
  },
});

/** A sync's edit: actor `system`, carrying the provider's values, and not a rule's change. */
function isProviderModification(event: DomainEvent): boolean {
  const { data } = event as TransactionEdited;
  // Metadata is there on the feed; a caller asking about an event not yet recorded gets the data's answer.
  const metadata = (event as Partial<RecordedEvent>).metadata;
  return data.provider !== undefined && (metadata === undefined || (metadata.actor === 'system' && metadata.ruleId === undefined));
}
