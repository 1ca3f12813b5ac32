import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Kysely, sql } from 'kysely';
import { DomainRuleError, NotFoundError, ValidationFailedError, type ValidationIssue } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import type { AppendGuard, EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { exists } from '../../infrastructure/event-store/append-guards.js';
import { type CommandContext, type CommandOutcome, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { type IfMatch, ifMatchAllows, preconditionFailed } from '../../infrastructure/http/entity-tags.js';
import { DATABASE, EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import { CategoryDirectory } from '../categories/category-directory.js';
import { detachTagsDeletedMeanwhile, laterPosition, tagIdsAppliedBy } from '../tags/deleted-tag-guard.js';
import { unusableTagIds, unusableTagMessage } from '../tags/tag-directory.js';
import { type TransactionEvent, type TransactionState, transactionStreamId } from './transaction.js';
import { type TransactionCommand, transactionDecider } from './transaction.decider.js';

type TransactionOutcome = CommandOutcome<TransactionEvent, TransactionState>;

export class ExecuteTransactionCommand extends Command<TransactionOutcome> {
  constructor(
    readonly transactionId: string,
    readonly command: TransactionCommand,
    readonly context: CommandContext,
    /** The client's If-Match: the edit or delete goes ahead only on the transaction as the client saw it. */
    readonly ifMatch?: IfMatch,
  ) {
    super();
  }
}

/**
 * Checks what the decider cannot see — the account, category and tags named exist for this
 * user — then decides and appends on the transaction's stream.
 */
@CommandHandler(ExecuteTransactionCommand)
export class ExecuteTransactionCommandHandler implements ICommandHandler<ExecuteTransactionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    private readonly categories: CategoryDirectory,
  ) {}

  async execute({ transactionId, command, context, ifMatch }: ExecuteTransactionCommand): Promise<TransactionOutcome> {
    const guards: AppendGuard[] = [];
    if (ifMatch !== undefined && command.type !== 'CreateTransaction') guards.push(await this.unchangedSince(ifMatch, transactionId, context.userId, command.type === 'DeleteTransaction'));
    if (command.type === 'CreateTransaction') {
      const accounts = this.db.selectFrom('accounts').select(sql`1`.as('found')).where('id', '=', command.data.accountId).where('user_id', '=', context.userId).where('deleted_at', 'is', null);
      guards.push({ condition: exists(this.db, accounts), refusal: () => new NotFoundError('Account') });
      guards.push({
        condition: exists(this.db, accounts.where('source', '=', 'manual')),
        refusal: () => new DomainRuleError('ACCOUNT_NOT_MANUAL', 'Transactions can be created only in manual accounts; this one is synced from its provider.'),
      });
      await this.checkReferences(context, command.data.categoryId, command.data.tagIds);
    } else if (command.type === 'EditTransaction' || command.type === 'SplitTransaction') {
      // The list is the truth of what is editable: a transaction whose account was deleted left it.
      const listed = this.db.selectFrom('transactions').select(sql`1`.as('found')).where('id', '=', transactionId).where('user_id', '=', context.userId);
      guards.push({ condition: exists(this.db, listed), refusal: () => new NotFoundError('Transaction') });
      if (command.type === 'EditTransaction') await this.checkReferences(context, command.patch.categoryId ?? null, command.patch.tagIds ?? []);
      else await this.checkSplitCategories(context.userId, command.splits.map((part) => part.categoryId));
    }
    const outcome = await handleCommand(this.store, transactionStreamId(transactionId), transactionDecider, withTagSets(command), context, 'Transaction', { guards, db: this.db });
    const detached = await detachTagsDeletedMeanwhile(this.store, transactionId, tagIdsAppliedBy(outcome.events), context);
    return detached ? { ...outcome, position: laterPosition(outcome.position, detached), appliedInline: [] } : outcome;
  }

  /**
   * Refuses at once a transaction whose tag (its stream revision) is not one the client named, and
   * keeps that revision as a condition of the append. A missing one is a 404 to an edit, as without
   * If-Match, and a 412 to a delete, which would otherwise succeed doing nothing.
   */
  private async unchangedSince(ifMatch: IfMatch, transactionId: string, userId: string, deleting: boolean): Promise<AppendGuard> {
    const listed = this.db.selectFrom('transactions').select(sql`1`.as('found')).where('id', '=', transactionId).where('user_id', '=', userId);
    const row = await this.db.selectFrom('transactions').select('revision').where('id', '=', transactionId).where('user_id', '=', userId).executeTakeFirst();
    if (!row && !deleting) throw new NotFoundError('Transaction');
    if (!row || !ifMatchAllows(ifMatch, String(row.revision))) throw preconditionFailed('Transaction');
    return { condition: exists(this.db, listed.where('revision', '=', row.revision)), refusal: () => preconditionFailed('Transaction') };
  }

  private async checkSplitCategories(userId: string, categoryIds: readonly (string | null)[]): Promise<void> {
    const issues = (await Promise.all(categoryIds.map((categoryId, index) => this.unknownCategory(userId, categoryId, ['splits', index, 'categoryId'])))).flat();
    if (issues.length > 0) throw new ValidationFailedError(issues);
  }

  /** Hidden categories stay assignable. A system one is known from its id (reference data); only a user's own is read. */
  private async unknownCategory(userId: string, categoryId: string | null, path: (string | number)[]): Promise<ValidationIssue[]> {
    if (categoryId === null || (await this.categories.isCategoryOf(userId, categoryId))) return [];
    return [{ code: 'custom', message: 'categoryId names no category of yours', path }];
  }

  private async checkReferences(context: CommandContext, categoryId: string | null, tagIds: readonly string[]): Promise<void> {
    const userId = context.userId;
    const issues = await this.unknownCategory(userId, categoryId, ['categoryId']);
    // Unknown, deleted, another user's or archived: each refused at its own element's path.
    const unusable = await unusableTagIds(this.db, userId, tagIds);
    tagIds.forEach((tagId, index) => {
      const reason = unusable.get(tagId);
      if (reason) issues.push({ code: 'custom', message: unusableTagMessage(tagId, reason), path: ['tagIds', index] });
    });
    if (issues.length > 0) throw new ValidationFailedError(issues);
  }
}

/** Tags are a set: each once, in one order, so equal sets compare (and are stored) equal. */
function withTagSets(command: TransactionCommand): TransactionCommand {
  const tagSet = (tagIds: readonly string[]) => [...new Set(tagIds)].sort();
  if (command.type === 'CreateTransaction') return { ...command, data: { ...command.data, tagIds: tagSet(command.data.tagIds) } };
  if (command.type === 'EditTransaction' && command.patch.tagIds) return { ...command, patch: { ...command.patch, tagIds: tagSet(command.patch.tagIds) } };
  return command;
}
