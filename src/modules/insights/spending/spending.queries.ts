import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { type Kysely, sql } from 'kysely';
import { UNCATEGORIZED } from '../../../../projections/spending/spending.table.js';
import { formatIsoDate, parseIsoDate } from '../../../core/calendar-day.js';
import type { Clock } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import { isUuid } from '../../../core/ids.js';
import { calendarDayIn } from '../../../core/time-zone.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { CLOCK, DATABASE } from '../../../infrastructure/runtime/tokens.js';
import type { AccountType } from '../../accounts/account.js';
import { userTimeZone } from '../../settings/user-settings.queries.js';
import { categoriesNotSpending } from './spending-categories.js';
import { type NetSpending, type SpendingSeries, spendingSeries } from './spending-series.js';
import { aggregateSources, type SpendingPeriod, spendingWindow } from './spending-window.js';

export interface SpendingFilter {
  readonly period: SpendingPeriod;
  readonly accountId?: string;
  readonly accountType?: AccountType;
}

export class GetSpending extends Query<SpendingSeries> {
  constructor(
    readonly userId: string,
    readonly filter: SpendingFilter,
  ) {
    super();
  }
}

@QueryHandler(GetSpending)
export class GetSpendingHandler implements IQueryHandler<GetSpending> {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ userId, filter }: GetSpending): Promise<SpendingSeries> {
    // Independent reads, on connections of their own at once: a request waits for the slowest, not the sum.
    const [accountIds, timeZone, notSpending] = await Promise.all([this.accountsInScope(userId, filter), userTimeZone(this.db, userId), categoriesNotSpending(this.db, userId)]);
    const today = parseIsoDate(calendarDayIn(timeZone, this.clock.now()));
    const first = filter.period === 'all' && accountIds.length > 0 ? await firstTransactionDay(this.db, userId, accountIds) : null;
    const window = spendingWindow(filter.period, today, first === null ? null : parseIsoDate(first));
    if (accountIds.length === 0) return spendingSeries(window, []);
    const { months, days } = aggregateSources(window);
    const parts = [
      ...(months ? [netsFrom('spending_monthly', userId, accountIds, notSpending, months)] : []),
      ...days.map((range) => netsFrom('spending_daily', userId, accountIds, notSpending, range)),
    ];
    const { rows } = await sql<NetSpending>`${sql.join(parts, sql` UNION ALL `)}`.execute(this.db);
    return spendingSeries(window, rows);
  }

  /** The user's live accounts the filter names; an `accountId` that names none of them is a 404. */
  private async accountsInScope(userId: string, filter: SpendingFilter): Promise<string[]> {
    if (filter.accountId !== undefined && !isUuid(filter.accountId)) throw new NotFoundError('Account');
    let query = this.db.selectFrom('accounts').select(['id', 'type']).where('user_id', '=', userId).where('deleted_at', 'is', null);
    if (filter.accountId !== undefined) query = query.where('id', '=', filter.accountId.toLowerCase());
    const accounts = await query.execute();
    if (filter.accountId !== undefined && accounts.length === 0) throw new NotFoundError('Account');
    return accounts.filter((account) => filter.accountType === undefined || account.type === filter.accountType).map((account) => account.id);
  }
}

/** Σ money out − Σ refunds per day (or whole month) of a range, both ends included; uncategorized money in is no refund. */
function netsFrom(table: 'spending_daily' | 'spending_monthly', userId: string, accountIds: string[], notSpending: string[], range: { from: number; to: number }) {
  // The monthly range's `to` is the first day of the month read by day, so it is left out.
  const to = table === 'spending_monthly' ? sql`day < ${formatIsoDate(range.to)}` : sql`day <= ${formatIsoDate(range.to)}`;
  return sql`(
    SELECT to_char(day, 'YYYY-MM-DD') AS day, (sum(outflow) - coalesce(sum(inflow) FILTER (WHERE category_id <> ${UNCATEGORIZED}::uuid), 0))::text AS net
      FROM ${sql.table(table)}
     WHERE user_id = ${userId} AND day >= ${formatIsoDate(range.from)} AND ${to}
       AND account_id = ANY(${accountIds}::uuid[]) AND category_id <> ALL(${notSpending}::uuid[])
     GROUP BY day)`;
}

/** The day of the first posted transaction in the accounts, any category (where `all` begins). */
async function firstTransactionDay(db: Kysely<Database>, userId: string, accountIds: string[]): Promise<string | null> {
  const { rows } = await sql<{ day: string | null }>`
    SELECT to_char(min(day), 'YYYY-MM-DD') AS day FROM spending_daily WHERE user_id = ${userId} AND account_id = ANY(${accountIds}::uuid[])`.execute(db);
  return rows[0]?.day ?? null;
}
