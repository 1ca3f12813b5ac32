import { performance } from 'node:perf_hooks';
import { accountsProjection } from '../../../../../projections/accounts/accounts.projection.js';
import { categoriesProjection } from '../../../../../projections/categories/categories.projection.js';
import { transactionsProjection } from '../../../../../projections/transactions/transactions.projection.js';
import { calendarDayIn } from '../../../../core/time-zone.js';
import { handleCommand } from '../../../../infrastructure/event-store/handle-command.js';
import type { JobDefinition, JobQueue } from '../../../../infrastructure/jobs/job.js';
import { type JobTrace, tracedBy } from '../../../../infrastructure/jobs/job-trace.js';
import type { Runtime } from '../../../../infrastructure/runtime/runtime.js';
import { userTimeZone } from '../../../settings/user-settings.queries.js';
import { addTransactions, EMPTY_RECURRING_INDEX } from '../recurring-index.state.js';
import { recurringStreamsDecider } from '../recurring-streams.decider.js';
import { recurringStreamsStreamId } from '../recurring-streams.js';
import { detectionToRecord } from './detection-snapshots.js';
import { loadRecurringTransactions, toRecurringTransaction } from './recurring-transactions.source.js';

export const RECURRING_REFRESH_JOB = 'recurring-refresh';

export interface RecurringRefreshInput {
  readonly userId: string;
  /** The request whose change queued it; requests later in the same window share the first one's run and trace. */
  readonly trace?: JobTrace;
}

/**
 * One job per user per debounce window: every change inside the window shares the id, and the
 * job runs when the window ends, after all of them. A change after that starts the next window.
 */
export function recurringRefreshJobId(userId: string, at: Date, debounceMs: number): { jobId: string; delayMs: number } {
  if (debounceMs <= 0) return { jobId: `recurring-refresh-${userId}-${at.getTime()}`, delayMs: 0 };
  const window = Math.floor(at.getTime() / debounceMs);
  return { jobId: `recurring-refresh-${userId}-${window}`, delayMs: (window + 1) * debounceMs - at.getTime() + WINDOW_MARGIN_MS };
}

/** Runs a little after its window ends, so a timer firing early or a clock a little behind cannot start it inside the window. */
const WINDOW_MARGIN_MS = 50;

/** Queues the user's refresh, `at` being now (not when the request began): after a sync that changed transactions, and after a manual change. */
export async function queueRecurringRefresh(jobs: Pick<JobQueue, 'enqueue'>, userId: string, at: Date, debounceMs: number, trace?: JobTrace): Promise<void> {
  const input: RecurringRefreshInput = trace ? { userId, trace } : { userId };
  await jobs.enqueue(RECURRING_REFRESH_JOB, input, recurringRefreshJobId(userId, at, debounceMs));
}

export type RecurringRefreshDependencies = Pick<Runtime, 'database' | 'eventStore' | 'clock' | 'watch'>;

export interface RecurringRefreshOutcome {
  readonly transactions: number;
  readonly activeStreams: number;
  readonly eventsAppended: number;
  /** Milliseconds: reading the transactions, running the engine, recording the changes. */
  readonly timings: { readonly read: number; readonly detect: number; readonly record: number };
}

/** Read model lag a refresh waits out before it reads; beyond it, the job fails and is retried. */
const READ_MODEL_WAIT_MS = 30_000;

/**
 * Runs detection over the user's live transactions and records what changed on
 * `recurring-<userId>`. A full run each time: the index is rebuilt from the read model, which
 * (measured by `npm run bench:recurring-refresh`) costs less than reading the rows does, and a
 * full run needs no state outside the event store. Idempotent: run again on the same data, it
 * appends nothing; stopped part-way, it has appended nothing or everything (one append).
 */
export async function refreshRecurringStreams(dependencies: RecurringRefreshDependencies, userId: string, trace?: JobTrace): Promise<RecurringRefreshOutcome> {
  const { database, eventStore, clock, watch } = dependencies;
  // The changes that queued this refresh were committed before it ran: wait until the read models have them.
  // The committed head, not the feed's: that one lags behind commits while an older transaction on the server runs.
  const head = await eventStore.committedHeadPosition();
  if (!(await watch.waitFor(head, READ_MODEL_WAIT_MS, [transactionsProjection.name, accountsProjection.name, categoriesProjection.name]))) {
    throw new Error(`The transactions read model has not caught up for the recurring refresh of user ${userId}; retrying`);
  }
  const started = performance.now();
  const rows = await loadRecurringTransactions(database.db, userId);
  const asOf = calendarDayIn(await userTimeZone(database.db, userId), clock.now());
  const read = performance.now();
  const categoryIds = new Map(rows.map((row) => [row.id, row.category_id]));
  const index = addTransactions(EMPTY_RECURRING_INDEX, rows.map((row) => toRecurringTransaction(userId, row)));
  const command = detectionToRecord(index, asOf, (id) => categoryIds.get(id) ?? null);
  const detected = performance.now();
  const outcome = await handleCommand(
    eventStore,
    recurringStreamsStreamId(userId),
    recurringStreamsDecider,
    command,
    { userId, actor: 'system', requestId: `recurring-refresh-${userId}`, ...tracedBy(trace), now: clock.now() },
    'Recurring streams',
  );
  const recorded = performance.now();
  return {
    transactions: rows.length,
    activeStreams: command.active.length,
    eventsAppended: outcome.events.length,
    timings: { read: read - started, detect: detected - read, record: recorded - detected },
  };
}

export function recurringRefreshJob(dependencies: RecurringRefreshDependencies): JobDefinition<RecurringRefreshInput> {
  return {
    name: RECURRING_REFRESH_JOB,
    async handle({ userId, trace }) {
      await refreshRecurringStreams(dependencies, userId, trace);
    },
  };
}
