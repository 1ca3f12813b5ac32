import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { AppConfig } from '../../../../config/config.js';
import type { JobRunner } from '../../../../infrastructure/jobs/job.js';
import { CONFIG, JOBS, LOGGER } from '../../../../infrastructure/runtime/tokens.js';
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
  ) {}

  async afterTransactionsChanged(userId: string, at: Date): Promise<void> {
    try {
      await queueRecurringRefresh(this.jobs, userId, at, this.config.recurringRefreshDebounceMs);
    } catch (error) {
      this.log.warn({ err: error, userId }, 'could not queue the recurring refresh after a transaction change');
    }
  }
}
