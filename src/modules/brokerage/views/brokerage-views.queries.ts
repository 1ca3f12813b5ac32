import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { type Kysely, sql } from 'kysely';
import { invalid, NotFoundError } from '../../../core/errors.js';
import { isUuid } from '../../../core/ids.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { DATABASE } from '../../../infrastructure/runtime/tokens.js';
import {
  type BrokerageAccountRow,
  type BrokerageActivityRow,
  groupByAccount,
  type PortfolioSnapshotRow,
  toActivityListItem,
  toBrokerageAccountListItem,
  toBrokerageActivity,
  toBrokerageBalance,
  toBrokeragePosition,
  toOverviewPortfolioSnapshot,
  toPortfolioSnapshot,
} from './brokerage-views.mapping.js';
import { isOtherInvestmentAccount, otherInvestmentAccountRows, toOtherInvestmentAccountListItem } from './other-investment-accounts.js';
import {
  type ActivityListResponse,
  type BrokerageAccountListItemResponse,
  type BrokerageAccountListResponse,
  type BrokerageBalanceResponse,
  type BrokerageOverviewResponse,
  OVERVIEW_ACTIVITIES_PER_ACCOUNT,
  OVERVIEW_SNAPSHOTS_PER_ACCOUNT,
  type PortfolioSnapshotListResponse,
} from './brokerage-views.responses.js';

export class ListBrokerageAccounts extends Query<BrokerageAccountListResponse> {
  constructor(readonly userId: string) {
    super();
  }
}

export class GetBrokerageOverview extends Query<BrokerageOverviewResponse> {
  constructor(readonly userId: string) {
    super();
  }
}

export class ListBrokerageActivities extends Query<ActivityListResponse> {
  constructor(
    readonly userId: string,
    readonly filter: { accountId?: string; limit?: number; offset?: number },
  ) {
    super();
  }
}

export class ListPortfolioSnapshots extends Query<PortfolioSnapshotListResponse> {
  constructor(
    readonly userId: string,
    readonly filter: { accountId?: string; startDate?: string; endDate?: string },
  ) {
    super();
  }
}

/** Newest first, then the later import, then the id: a total order, so pages never skip or repeat. */
const ACTIVITY_ORDER = sql`trade_date DESC, created_at DESC, id DESC`;

/** Every brokerage account of the user with its authorization's state and its latest balance. */
function accountRows(db: Kysely<Database>, userId: string): Promise<BrokerageAccountRow[]> {
  return db
    .selectFrom('brokerage_accounts as account')
    .innerJoin('brokerage_authorizations as authorization', 'authorization.id', 'account.authorization_uuid')
    .leftJoin('brokerage_balances as balance', 'balance.account_id', 'account.id')
    .select([
      'account.id',
      'account.user_id',
      'account.brokerage_account_id',
      'account.name',
      'account.institution_name',
      'account.account_type',
      'account.account_status',
      'account.created_at',
      'authorization.brokerage_authorization_id',
      'authorization.disabled_at',
      'balance.id as balance_id',
      'balance.currency',
      'balance.cash',
      'balance.buying_power',
      'balance.total_value',
      'balance.last_sync',
      'balance.created_at as balance_created_at',
      'balance.updated_at as balance_updated_at',
    ])
    .where('account.user_id', '=', userId)
    .orderBy('account.created_at')
    .orderBy('account.name')
    .orderBy('account.id')
    .execute();
}

/**
 * The account an `accountId` filter names, lower-cased; 404 unless it is one of the accounts GET
 * /brokerage/accounts lists (api-decisions §Brokerage) — connected ones, and investment accounts
 * made by hand or bank-linked, which have no activities or portfolio series (an empty answer) —
 * whatever the reason: not a UUID, another user's, a bank account, or none at all.
 */
async function ownBrokerageAccount(db: Kysely<Database>, userId: string, accountId: string): Promise<string> {
  const id = accountId.toLowerCase();
  if (!isUuid(id)) throw new NotFoundError('Brokerage account');
  const own = await db.selectFrom('brokerage_accounts').select('id').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  if (!own && !(await isOtherInvestmentAccount(db, userId, id))) throw new NotFoundError('Brokerage account');
  return id;
}

/**
 * What GET /brokerage/accounts lists: the connected accounts and every other investment account
 * of the user, oldest first (then by name and id); the connected ones' rows too, for the overview.
 */
async function listedAccounts(db: Kysely<Database>, userId: string): Promise<{ connected: BrokerageAccountRow[]; listed: BrokerageAccountListItemResponse[] }> {
  const [connected, others] = await Promise.all([accountRows(db, userId), otherInvestmentAccountRows(db, userId)]);
  const entries = [
    ...connected.map((row) => ({ key: [row.created_at.getTime(), row.name, row.id] as const, item: toBrokerageAccountListItem(row) })),
    ...others.map((row) => ({ key: [row.created_at.getTime(), row.name, row.id] as const, item: toOtherInvestmentAccountListItem(row) })),
  ];
  entries.sort((a, b) => a.key[0] - b.key[0] || (a.key[1] < b.key[1] ? -1 : a.key[1] > b.key[1] ? 1 : 0) || (a.key[2] < b.key[2] ? -1 : a.key[2] > b.key[2] ? 1 : 0));
  return { connected, listed: entries.map((entry) => entry.item) };
}

/** Several reads that must agree with each other (one overview, a page and its total) see one snapshot of the read model. */
const consistentRead = <T>(db: Kysely<Database>, read: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
  db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);

@QueryHandler(ListBrokerageAccounts)
export class ListBrokerageAccountsHandler implements IQueryHandler<ListBrokerageAccounts> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId }: ListBrokerageAccounts): Promise<BrokerageAccountListResponse> {
    return { accounts: (await listedAccounts(this.db, userId)).listed };
  }
}

@QueryHandler(GetBrokerageOverview)
export class GetBrokerageOverviewHandler implements IQueryHandler<GetBrokerageOverview> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  execute({ userId }: GetBrokerageOverview): Promise<BrokerageOverviewResponse> {
    return consistentRead(this.db, async (trx) => {
      const { connected: accounts, listed } = await listedAccounts(trx, userId);
      const positions = await trx
        .selectFrom('brokerage_positions')
        .innerJoin('brokerage_accounts', 'brokerage_accounts.id', 'brokerage_positions.account_id')
        .select(['brokerage_positions.id', 'account_id', 'symbol', 'description', 'brokerage_positions.currency', 'units', 'average_price', 'price', 'market_value'])
        .where('brokerage_positions.user_id', '=', userId)
        .orderBy('brokerage_accounts.created_at')
        .orderBy('account_id')
        .orderBy('symbol')
        .execute();
      const activities = await sql<BrokerageActivityRow>`
        SELECT id, account_id, provider_activity_id, type, symbol, description, currency, amount, fee, price, units, trade_date, settlement_date, created_at
        FROM (
          SELECT activity.*, row_number() OVER (PARTITION BY activity.account_id ORDER BY activity.trade_date DESC, activity.created_at DESC, activity.id DESC) AS rank
          FROM brokerage_activities activity JOIN brokerage_accounts account ON account.id = activity.account_id
          WHERE activity.user_id = ${userId}
        ) ranked
        WHERE rank <= ${OVERVIEW_ACTIVITIES_PER_ACCOUNT}
        ORDER BY ${ACTIVITY_ORDER}`.execute(trx);
      const snapshots = await sql<PortfolioSnapshotRow>`
        SELECT id, account_id, date, total_value, cash_value, holdings_value, currency
        FROM (
          SELECT snapshot.*, row_number() OVER (PARTITION BY snapshot.account_id ORDER BY snapshot.date DESC) AS rank
          FROM portfolio_snapshots snapshot JOIN brokerage_accounts account ON account.id = snapshot.account_id
          WHERE snapshot.user_id = ${userId}
        ) ranked
        WHERE rank <= ${OVERVIEW_SNAPSHOTS_PER_ACCOUNT}
        ORDER BY date, account_id`.execute(trx);
      const brokerages = await trx.selectFrom('brokerage_authorizations').select('brokerage_name').distinct().where('user_id', '=', userId).orderBy('brokerage_name').execute();

      const accountIds = listed.map((account) => account.id);
      const balances = accounts.map(toBrokerageBalance).filter((balance): balance is BrokerageBalanceResponse => balance !== null);
      const activityItems = activities.rows.map(toBrokerageActivity);
      const positionItems = positions.map(toBrokeragePosition);
      return {
        balances,
        activities: activityItems,
        positions: positionItems,
        accounts: listed,
        portfolioSnapshots: snapshots.rows.map(toOverviewPortfolioSnapshot),
        balancesByAccount: groupByAccount(accountIds, balances),
        activitiesByAccount: groupByAccount(accountIds, activityItems),
        positionsByAccount: groupByAccount(accountIds, positionItems),
        userBrokerages: brokerages.map((row) => row.brokerage_name),
      };
    });
  }
}

@QueryHandler(ListBrokerageActivities)
export class ListBrokerageActivitiesHandler implements IQueryHandler<ListBrokerageActivities> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  execute({ userId, filter }: ListBrokerageActivities): Promise<ActivityListResponse> {
    return consistentRead(this.db, async (trx) => {
      const accountId = filter.accountId === undefined ? undefined : await ownBrokerageAccount(trx, userId, filter.accountId);
      let matching = trx
        .selectFrom('brokerage_activities')
        .where('brokerage_activities.user_id', '=', userId)
        .where(({ exists, selectFrom }) => exists(selectFrom('brokerage_accounts').select('brokerage_accounts.id').whereRef('brokerage_accounts.id', '=', 'brokerage_activities.account_id')));
      if (accountId) matching = matching.where('account_id', '=', accountId);
      const { total } = await matching.select(({ fn }) => fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
      const rows = await matching
        .selectAll('brokerage_activities')
        .orderBy('trade_date', 'desc')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(filter.limit ?? 50)
        .offset(filter.offset ?? 0)
        .execute();
      return { activities: rows.map(toActivityListItem), total: Number(total) };
    });
  }
}

@QueryHandler(ListPortfolioSnapshots)
export class ListPortfolioSnapshotsHandler implements IQueryHandler<ListPortfolioSnapshots> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, filter }: ListPortfolioSnapshots): Promise<PortfolioSnapshotListResponse> {
    if (filter.startDate && filter.endDate && filter.startDate > filter.endDate) throw invalid(['startDate'], 'startDate must not be after endDate');
    const accountId = filter.accountId === undefined ? undefined : await ownBrokerageAccount(this.db, userId, filter.accountId);
    let query = this.db
      .selectFrom('portfolio_snapshots')
      .innerJoin('brokerage_accounts', 'brokerage_accounts.id', 'portfolio_snapshots.account_id')
      .select(['portfolio_snapshots.id', 'account_id', 'date', 'total_value', 'cash_value', 'holdings_value', 'portfolio_snapshots.currency'])
      .where('portfolio_snapshots.user_id', '=', userId);
    if (accountId) query = query.where('account_id', '=', accountId);
    if (filter.startDate) query = query.where('date', '>=', filter.startDate);
    if (filter.endDate) query = query.where('date', '<=', filter.endDate);
    const rows = await query.orderBy('date').orderBy('account_id').execute();
    return { snapshots: rows.map(toPortfolioSnapshot) };
  }
}
