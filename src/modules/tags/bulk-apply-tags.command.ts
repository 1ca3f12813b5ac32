import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { type GlobalPosition } from '../../core/events.js';
import { ValidationFailedError, type ValidationIssue } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { DATABASE, EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import { transactionStreamId } from '../transactions/transaction.js';
import { transactionDecider } from '../transactions/transaction.decider.js';
import { deletedTagIds, detachTagsDeletedMeanwhile, laterPosition } from './deleted-tag-guard.js';
import { unusableTagIds, unusableTagMessage } from './tag-directory.js';

export interface BulkApplyOutcome {
  readonly position: GlobalPosition | null;
  readonly updatedCount: number;
}

export class BulkApplyTags extends Command<BulkApplyOutcome> {
  constructor(
    readonly transactionIds: readonly string[],
    readonly addTagIds: readonly string[],
    readonly removeTagIds: readonly string[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Streams written at once: enough to overlap round trips, few enough to leave the pool to others. */
const CONCURRENCY = 8;

/**
 * Adds and removes tags on many transactions, one append on each transaction's own stream (a
 * user write: it locks `tags`). Ids that are not live transactions of this user are skipped;
 * only a change of a set is recorded, so `updatedCount` counts changed sets and a repeat is 0.
 */
@CommandHandler(BulkApplyTags)
export class BulkApplyTagsHandler implements ICommandHandler<BulkApplyTags> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
  ) {}

  async execute({ transactionIds, addTagIds, removeTagIds, context }: BulkApplyTags): Promise<BulkApplyOutcome> {
    await this.checkTags(context.userId, addTagIds, removeTagIds);
    const ids = [...new Set(transactionIds)];
    const live = await this.db.selectFrom('transactions').select('id').where('user_id', '=', context.userId).where('id', 'in', ids).execute();
    const queue = live.map((row) => row.id);
    const changed: string[] = [];
    let position: GlobalPosition | null = null;
    const worker = async () => {
      for (let transactionId = queue.shift(); transactionId !== undefined; transactionId = queue.shift()) {
        const command = { type: 'ChangeTransactionTags' as const, transactionId, add: [...addTagIds], remove: [...removeTagIds], lock: true };
        const outcome = await handleCommand(this.store, transactionStreamId(transactionId), transactionDecider, command, context, 'Transaction');
        if (outcome.events.length === 0) continue;
        changed.push(transactionId);
        position = laterPosition(position, outcome.position);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // A tag deleted while this ran is taken off again (see deleted-tag-guard.ts).
    const deletedMeanwhile = changed.length > 0 ? await deletedTagIds(this.store, addTagIds) : [];
    if (deletedMeanwhile.length > 0) {
      for (const transactionId of changed) position = laterPosition(position, await detachTagsDeletedMeanwhile(this.store, transactionId, deletedMeanwhile, context));
    }
    return { position, updatedCount: changed.length };
  }

  private async checkTags(userId: string, addTagIds: readonly string[], removeTagIds: readonly string[]): Promise<void> {
    const issues: ValidationIssue[] = [];
    const unusable = await unusableTagIds(this.db, userId, addTagIds);
    addTagIds.forEach((tagId, index) => {
      const reason = unusable.get(tagId);
      if (reason) issues.push({ code: 'custom', message: unusableTagMessage(tagId, reason), path: ['addTagIds', index] });
    });
    removeTagIds.forEach((tagId, index) => {
      if (addTagIds.includes(tagId)) issues.push({ code: 'custom', message: `tag ${tagId} cannot be both added and removed`, path: ['removeTagIds', index] });
    });
    if (addTagIds.length === 0 && removeTagIds.length === 0) issues.push({ code: 'custom', message: 'addTagIds or removeTagIds must name at least one tag', path: ['addTagIds'] });
    if (issues.length > 0) throw new ValidationFailedError(issues);
  }
}
