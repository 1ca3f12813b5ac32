import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { invalid } from '../../core/errors.js';
import { requireLiveAccounts } from './account.queries.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import type { BalanceSnapshotListResponse } from './http/account.responses.js';

export class ListBalanceSnapshots extends Query<BalanceSnapshotListResponse> {
  constructor(
    readonly userId: string,
    readonly filter: { accountId?: string; startDate?: string; endDate?: string },
  ) {
    super();
  }
}

@QueryHandler(ListBalanceSnapshots)
export class ListBalanceSnapshotsHandler implements IQueryHandler<ListBalanceSnapshots> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, filter }: ListBalanceSnapshots): Promise<BalanceSnapshotListResponse> {
    if (filter.startDate && filter.endDate && filter.startDate > filter.endDate) throw invalid(['startDate'], 'startDate must not be after endDate');
    const accountId = filter.accountId?.toLowerCase();
    // Brokerage-linked accounts have their value series at /portfolio/snapshots, not here (rule 12).
    if (accountId) await requireLiveAccounts(this.db, userId, [accountId], 'brokerage_link');
    let query = this.db
      .selectFrom('balance_snapshots')
      .innerJoin('accounts', 'accounts.id', 'balance_snapshots.account_id')
      .select(['balance_snapshots.id', 'account_id', 'date', 'current_balance', 'available_balance', 'balance_snapshots.credit_limit'])
      .where('balance_snapshots.user_id', '=', userId)
      .where('accounts.deleted_at', 'is', null)
      .where('accounts.source', '<>', 'brokerage_link');
    if (accountId) query = query.where('account_id', '=', accountId);
    if (filter.startDate) query = query.where('date', '>=', filter.startDate);
    if (filter.endDate) query = query.where('date', '<=', filter.endDate);
    const rows = await query.orderBy('date').orderBy('account_id').execute();
    return {
      snapshots: rows.map((row) => ({
        id: row.id,
        accountId: row.account_id,
        date: row.date,
        currentBalance: Number(row.current_balance),
        availableBalance: Number(row.available_balance),
        creditLimit: row.credit_limit === null ? null : Number(row.credit_limit),
      })),
    };
  }
}
