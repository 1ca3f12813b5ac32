import type { RecordedEvent } from '../../../core/events.js';
import { causeOf, reaction, traceOf } from '../../../infrastructure/projections/reaction.js';
import { departingAccountIds, TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES } from '../../accounts/account-departures.js';
import { editTouches, TRANSACTION_STREAM_PREFIX, type TransactionEdited } from '../transaction.js';
import { awaitingPairing } from './transfer-candidates.js';
import { TRANSFER_PAIRING_JOB, type TransferPairingInput, transferPairingJobId } from './transfer-pairing.job.js';

const CANDIDATE_EVENT_TYPES = ['TransactionCreated', 'TransactionImported', 'TransactionEdited'];
const RECONCILE_EVENT_TYPES = ['TransferPaired', 'TransferUnpaired', 'TransactionDeleted', 'TransactionRemoved', 'TransactionReplaced'];

/**
 * Transfers are kept by a reaction on the feed (decision 0043), not by each write path: a new
 * transaction, or one whose amount or date changed, or one that left a pair, may be one side of
 * a transfer; a pair that changed or lost a side is brought
 * back to two sides that agree; accounts that left release the pairs into them.
 */
export const transferPairingReaction = reaction({
  name: 'transfer-pairing',
  version: 1,
  eventTypes: [...CANDIDATE_EVENT_TYPES, ...RECONCILE_EVENT_TYPES, ...TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES],
  reactsTo: (event) => event.type !== 'TransactionEdited' || editTouches(event as TransactionEdited, ['amount', 'date']),
  async jobsFor(events, db) {
    const byUser = new Map<string, { first: RecordedEvent; candidates: Set<string>; reconcile: Set<string>; departed: Set<string> }>();
    for (const event of events) {
      const departing = departingAccountIds(event);
      const onTransaction = event.streamId.startsWith(TRANSACTION_STREAM_PREFIX);
      if (!departing && !onTransaction) continue;
      const userId = event.metadata.userId;
      const asks = byUser.get(userId) ?? { first: event, candidates: new Set(), reconcile: new Set(), departed: new Set() };
      byUser.set(userId, asks);
      if (departing) {
        for (const accountId of departing) asks.departed.add(accountId);
        continue;
      }
      const transactionId = (event.data as { transactionId: string }).transactionId;
      if (RECONCILE_EVENT_TYPES.includes(event.type)) asks.reconcile.add(transactionId);
      // A side that left a pair may be the side of another transfer (never of a pair the user undid).
      if (CANDIDATE_EVENT_TYPES.includes(event.type) || event.type === 'TransferUnpaired') asks.candidates.add(transactionId);
    }
    const jobs = [];
    for (const [userId, asks] of byUser) {
      // Most new transactions mirror nothing: they ask for no job.
      const mirrored = await awaitingPairing(db, userId, [...asks.candidates]);
      if (mirrored.length === 0 && asks.reconcile.size === 0 && asks.departed.size === 0) continue;
      const input: TransferPairingInput = {
        userId,
        candidates: mirrored,
        reconcile: [...asks.reconcile],
        departedAccountIds: [...asks.departed],
        requestId: asks.first.metadata.requestId,
        trace: traceOf(asks.first),
      };
      jobs.push({ name: TRANSFER_PAIRING_JOB, input, jobId: transferPairingJobId(asks.first.id, userId), cause: causeOf(asks.first) });
    }
    return jobs;
  },
});

