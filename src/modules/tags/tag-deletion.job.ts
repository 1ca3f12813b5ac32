import { sql } from 'kysely';
import { transactionsProjection } from '../../../projections/transactions/transactions.projection.js';
import { handleCommand } from '../../infrastructure/event-store/handle-command.js';
import type { JobDefinition } from '../../infrastructure/jobs/job.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { transactionStreamId } from '../transactions/transaction.js';
import { transactionDecider } from '../transactions/transaction.decider.js';
import { tagDeletions } from './deleted-tag-guard.js';

export const TAG_DELETION_JOB = 'tag-deletion-fan-out';
export const tagDeletionJobId = (tagId: string) => `tag-deletion-${tagId}`;

export interface TagDeletionInput {
  readonly userId: string;
  readonly tagId: string;
}

export interface TagDeletionHooks {
  /** Called after each transaction is handled (tests stop the job part-way through here). */
  readonly afterTransaction?: (transactionId: string) => void | Promise<void>;
}

const PAGE = 200;
const PROJECTION_WAIT_MS = 30_000;

/**
 * A deleted tag leaves every transaction: TagRemoved on each one's own stream, actor `system`,
 * caused by the deletion. It first waits until the transactions read model has the deletion, so
 * any tag applied before the deletion is in what it scans (one applied after is taken off by its
 * writer, see deleted-tag-guard.ts). Resumable and idempotent: it pages by id through the
 * transactions still carrying the tag, and the decider records nothing for one already freed, so a
 * run stopped part-way and run again finishes the rest and repeats nothing.
 */
export function tagDeletionJob(runtime: Pick<Runtime, 'database' | 'eventStore' | 'clock' | 'watch'>, hooks: TagDeletionHooks = {}): JobDefinition<TagDeletionInput> {
  return {
    name: TAG_DELETION_JOB,
    async handle({ userId, tagId }) {
      const deletion = (await tagDeletions(runtime.eventStore, [tagId])).get(tagId);
      if (!deletion || deletion.metadata.userId !== userId) return;
      if (!(await runtime.watch.waitFor(deletion.position, PROJECTION_WAIT_MS, [transactionsProjection.name]))) {
        throw new Error(`The transactions read model has not reached the deletion of tag ${tagId} yet; retrying`);
      }
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const page = await runtime.database.db
          .selectFrom('transactions')
          .select('id')
          .where('user_id', '=', userId)
          .where(sql<boolean>`tag_ids @> ARRAY[${tagId}]::uuid[]`)
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
        for (const { id } of page) {
          await handleCommand(
            runtime.eventStore,
            transactionStreamId(id),
            transactionDecider,
            { type: 'ChangeTransactionTags', transactionId: id, add: [], remove: [tagId], lock: false },
            { userId, actor: 'system', requestId: deletion.metadata.requestId, correlationId: deletion.metadata.correlationId, causationId: deletion.id, now: runtime.clock.now() },
            'Transaction',
          );
          await hooks.afterTransaction?.(id);
        }
        if (page.length < PAGE) return;
        after = page[page.length - 1].id;
      }
    },
  };
}
