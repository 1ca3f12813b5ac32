import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { AppConfig } from '../../../../config/config.js';
import type { JobRunner } from '../../../../infrastructure/jobs/job.js';
import type { JobTrace } from '../../../../infrastructure/jobs/job-trace.js';
import type { Clock } from '../../../../core/clock.js';
import { CLOCK, CONFIG, JOBS, LOGGER } from '../../../../infrastructure/runtime/tokens.js';
import { queueRecurringRefresh } from './recurring-refresh.job.js';

/**
 * Where the command side asks for a recurring refresh once a change of the user's transactions is
 * recorded (a manual create, edit or delete, an account deleted, an item disconnected). The change
 * is already stored when this runs, so a queue that refuses must not fail the request: it is
 * logged, and the user's next change (or, for a stream that stopped, the daily sweep) refreshes.
 */
@Injectable()
export class RecurringRefreshRequests {
  constructor(
    @Inject(JOBS) private readonly jobs: JobRunner,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The window is the one the queueing falls in, not the request's start: a request that began in
   * a window whose refresh has already read the transactions must queue the next one.
   */
  async afterTransactionsChanged(userId: string, trace?: JobTrace): Promise<void> {
    try {
      await queueRecurringRefresh(this.jobs, userId, this.clock.now(), this.config.recurringRefreshDebounceMs, trace);
    } catch (error) {
      this.log.warn({ err: error, userId }, 'could not queue the recurring refresh after a transaction change');
    }
  }
}
