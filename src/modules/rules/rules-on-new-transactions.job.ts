import type { JobDefinition } from '../../infrastructure/jobs/job.js';
import { type JobTrace, tracedBy } from '../../infrastructure/jobs/job-trace.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { runnableRules, runRulesOn } from './rule-runner.js';
import { listRules } from './rules.store.js';

export const RULES_ON_NEW_TRANSACTIONS_JOB = 'rules-on-new-transactions';

/** One job per batch of a user's events, named after the batch's first event: the same batch asks once. */
export const rulesOnNewTransactionsJobId = (firstEventId: string, userId: string) => `rules-${firstEventId}-${userId}`;

export interface RulesOnNewTransactionsInput {
  readonly userId: string;
  readonly transactionIds: readonly string[];
  /** The request (or sync) that appended the events: the rules' changes share its correlation. */
  readonly requestId: string;
  readonly trace?: JobTrace;
}

/**
 * Runs the user's rules, in order, on transactions that were just created, imported or modified
 * by their provider (decision 0042), reading each one's current values from its stream. Rules read
 * when the job runs: one created or changed since the events is the one that applies.
 * Idempotent: a run repeated (after a crash, or a batch asked for twice) decides no event again.
 */
export function rulesOnNewTransactionsJob(runtime: Pick<Runtime, 'database' | 'eventStore' | 'clock'>): JobDefinition<RulesOnNewTransactionsInput> {
  return {
    name: RULES_ON_NEW_TRANSACTIONS_JOB,
    async handle({ userId, transactionIds, requestId, trace }) {
      const rules = await listRules(runtime.database.db, userId);
      if (rules.length === 0) return;
      const runnable = await runnableRules(runtime.database.db, userId, rules);
      for (const transactionId of transactionIds) {
        await runRulesOn(runtime.eventStore, transactionId, runnable, { userId, requestId, ...tracedBy(trace), now: runtime.clock.now() });
      }
    },
  };
}
