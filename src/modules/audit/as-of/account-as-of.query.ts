import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { accountsProjection } from '../../../../projections/accounts/accounts.projection.js';
import type { Clock } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { withEntityTag } from '../../../infrastructure/http/entity-tags.js';
import { CLOCK, DATABASE, EVENT_STORE } from '../../../infrastructure/runtime/tokens.js';
import { accountEntityTag, toDetail } from '../../accounts/account.queries.js';
import type { AccountDetailResponse } from '../../accounts/http/account.responses.js';
import { accountHistoryUpTo } from './as-of-history.js';
import { refuseFutureInstant } from './future-instant.js';
import { readFromScratch } from './scratch-read-models.js';

export class GetAccountAsOf extends Query<AccountDetailResponse> {
  constructor(
    readonly userId: string,
    readonly accountId: string,
    readonly asOf: Date,
  ) {
    super();
  }
}

/**
 * The account as GET /accounts/{id} showed it at `asOf` — its balance, credit limits, flags and
 * name then — from its streams up to then, projected by the accounts read model's own projector
 * into a scratch table and mapped as the live answer. 404 when it was not there yet, or no longer.
 */
@QueryHandler(GetAccountAsOf)
export class GetAccountAsOfHandler implements IQueryHandler<GetAccountAsOf> {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ userId, accountId, asOf }: GetAccountAsOf): Promise<AccountDetailResponse> {
    refuseFutureInstant(asOf, this.clock);
    const events = await accountHistoryUpTo(this.store, this.db, userId, accountId, asOf);
    if (events.length === 0) throw new NotFoundError('Account');
    const row = await readFromScratch(this.db, [{ projection: accountsProjection, events }], (trx) =>
      trx.selectFrom('accounts').selectAll().where('id', '=', accountId).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst(),
    );
    if (!row) throw new NotFoundError('Account');
    return withEntityTag(toDetail(row), accountEntityTag(row));
  }
}
