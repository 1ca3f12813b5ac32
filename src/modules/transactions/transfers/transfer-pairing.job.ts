import type { JobDefinition } from '../../../infrastructure/jobs/job.js';
import { type JobTrace, tracedBy } from '../../../infrastructure/jobs/job-trace.js';
import { type CommandContext, currentState, handleCommand } from '../../../infrastructure/event-store/handle-command.js';
import type { Runtime } from '../../../infrastructure/runtime/runtime.js';
import { transactionsProjection } from '../../../../projections/transactions/transactions.projection.js';
import { type TransactionState, transactionStreamId } from '../transaction.js';
import { transactionDecider } from '../transaction.decider.js';
import { transactionsPairedInto, transactionsPairedWith, transferCandidates } from './transfer-candidates.js';
import { pairable, pairTransfer, reconcileTransfer, type RunTransactionCommand } from './transfer-pairing.js';

export const TRANSFER_PAIRING_JOB = 'transfer-pairing';

const READ_MODEL_WAIT_MS = 30_000;

/** One job per batch of a user's events, named after the batch's first event: the same batch asks once. */
export const transferPairingJobId = (firstEventId: string, userId: string) => `transfers-${firstEventId}-${userId}`;

export interface TransferPairingInput {
  readonly userId: string;
  /** New or changed transactions, or ones that left a pair: paired automatically when a mirror is found. */
  readonly candidates: readonly string[];
  /** Transactions whose pair changed, or that left: their pair's two sides are brought to agree. */
  readonly reconcile: readonly string[];
  /** Accounts that left: transactions paired into them leave their pairs. */
  readonly departedAccountIds: readonly string[];
  readonly requestId: string;
  readonly trace?: JobTrace;
}

/**
 * Keeps a user's transfers (decision 0043): pairs that lost a side are dissolved, pairings half
 * done are finished, and new transactions are paired with their mirror in another account, the
 * closest dates first. Idempotent: every step decides on the streams' current state, so a run
 * repeated appends nothing.
 */
export function transferPairingJob(runtime: Pick<Runtime, 'database' | 'eventStore' | 'clock' | 'watch'>): JobDefinition<TransferPairingInput> {
  return {
    name: TRANSFER_PAIRING_JOB,
    async handle({ userId, candidates, reconcile, departedAccountIds, requestId, trace }) {
      const db = runtime.database.db;
      // The events that asked for this were committed before it ran: what it reads must show them.
      const head = await runtime.eventStore.committedHeadPosition();
      if (!(await runtime.watch.waitFor(head, READ_MODEL_WAIT_MS, [transactionsProjection.name]))) {
        throw new Error(`The transactions read model has not caught up for the transfer pairing of user ${userId}; retrying`);
      }
      const context: CommandContext = { userId, actor: 'system', requestId, ...tracedBy(trace), now: runtime.clock.now() };
      const run: RunTransactionCommand = (transactionId, command) => handleCommand(runtime.eventStore, transactionStreamId(transactionId), transactionDecider, command, context, 'Transaction');
      const read = (transactionId: string) => currentState(runtime.eventStore, transactionStreamId(transactionId), transactionDecider, userId);

      for (const { id, counterpartId } of await transactionsPairedInto(db, userId, departedAccountIds)) {
        await run(id, { type: 'UnpairTransfer', transactionId: id, reason: 'counterpartGone', onlyFrom: counterpartId });
      }
      for (const transactionId of new Set(reconcile)) {
        await reconcileTransfer(run, read, transactionId);
        for (const pointing of await transactionsPairedWith(db, userId, transactionId)) await reconcileTransfer(run, read, pointing);
      }
      await pairNew(run, read, await transferCandidates(db, userId, [...new Set(candidates)]));
    },
  };
}

async function pairNew(run: RunTransactionCommand, read: (transactionId: string) => Promise<TransactionState>, pairs: Awaited<ReturnType<typeof transferCandidates>>): Promise<void> {
  const taken = new Set<string>();
  for (const { transactionId, counterpartId } of pairs) {
    if (taken.has(transactionId) || taken.has(counterpartId)) continue;
    const [state, other] = await Promise.all([read(transactionId), read(counterpartId)]);
    if (state.status !== 'live' || other.status !== 'live' || state.transfer || other.transfer || !pairable(state, other, transactionId, counterpartId)) continue;
    const side = (id: string, of: TransactionState) => ({ transactionId: id, accountId: of.accountId as string, amount: (of.current as { amount: string }).amount });
    if (await pairTransfer(run, side(transactionId, state), side(counterpartId, other), 'automatic')) {
      taken.add(transactionId);
      taken.add(counterpartId);
    }
  }
}
