import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { accountsProjection } from '../../../../projections/accounts/accounts.projection.js';
import { transactionsProjection } from '../../../../projections/transactions/transactions.projection.js';
import type { Clock } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { withEntityTag } from '../../../infrastructure/http/entity-tags.js';
import { CLOCK, DATABASE, EVENT_STORE } from '../../../infrastructure/runtime/tokens.js';
import type { TransactionResponse } from '../../transactions/http/transaction.responses.js';
import { transactionStreamId } from '../../transactions/transaction.js';
import { splitCategoryIdsOf, toTransactionResponse } from '../../transactions/transaction.mapper.js';
import { categorySummariesById } from '../../categories/category-directory.js';
import { selectTransactions } from '../../transactions/transaction.queries.js';
import { accountHistoryUpTo, eventsUpTo } from './as-of-history.js';
import { refuseFutureInstant } from './future-instant.js';
import { readFromScratch } from './scratch-read-models.js';

export class GetTransactionAsOf extends Query<TransactionResponse> {
  constructor(
    readonly userId: string,
    readonly transactionId: string,
    readonly asOf: Date,
  ) {
    super();
  }
}

export interface AsOfDependencies {
  readonly db: Kysely<Database>;
  readonly store: EventStore;
}

/**
 * The transaction as GET /transactions/{id} showed it at `asOf`: its own stream up to then and its
 * account's, each projected by its read model's own projector into scratch tables, and read by the
 * same query and mapping as the live answer. The account (name, type, institution, whether it was
 * still there) is the one of that instant; the category's and the tags' names are today's (a tag
 * deleted since keeps its last name). `owner` null: whoever's it is (the operator's command line).
 */
export async function transactionAsOf({ db, store }: AsOfDependencies, owner: string | null, transactionId: string, asOf: Date): Promise<TransactionResponse> {
  const history = await store.readStream(transactionStreamId(transactionId));
  const past = eventsUpTo(history, asOf);
  if (past.length === 0 || (owner !== null && past[0].metadata.userId !== owner)) throw new NotFoundError('Transaction');
  const userId = past[0].metadata.userId;
  const { accountId } = past[0].data as { accountId: string };
  const accountEvents = await accountHistoryUpTo(store, db, userId, accountId, asOf);
  const replays = [
    { projection: transactionsProjection, events: past },
    { projection: accountsProjection, events: accountEvents },
  ];
  const row = await readFromScratch(db, replays, (trx) => selectTransactions(trx, userId).where('t.id', '=', transactionId).executeTakeFirst());
  if (!row) throw new NotFoundError('Transaction');
  const [tags, splitCategories] = await Promise.all([
    // Every tag it carried then, deleted ones included (with their last name).
    row.tag_ids.length === 0 ? [] : db.selectFrom('tags').select(['id', 'name', 'color']).where('user_id', '=', userId).where('id', 'in', row.tag_ids).execute(),
    categorySummariesById(db, userId, splitCategoryIdsOf([row])),
  ]);
  return withEntityTag(toTransactionResponse(row, new Map(tags.map((tag) => [tag.id, tag])), splitCategories), String(row.revision));
}

@QueryHandler(GetTransactionAsOf)
export class GetTransactionAsOfHandler implements IQueryHandler<GetTransactionAsOf> {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ userId, transactionId, asOf }: GetTransactionAsOf): Promise<TransactionResponse> {
    refuseFutureInstant(asOf, this.clock);
    return transactionAsOf({ db: this.db, store: this.store }, userId, transactionId, asOf);
  }
}
