import type { BrokerageActivitiesTable, BrokeragePositionsTable, PortfolioSnapshotsTable } from '../../../../projections/brokerage/brokerage.tables.js';
import { normaliseDecimal } from '../../../core/money.js';
import type {
  ActivityListItemResponse,
  BrokerageAccountListItemResponse,
  BrokerageActivityResponse,
  BrokerageBalanceResponse,
  BrokeragePositionResponse,
  OverviewPortfolioSnapshotResponse,
  PortfolioSnapshotResponse,
} from './brokerage-views.responses.js';

/** A brokerage account joined with its authorization and, once synced, its latest balance. */
export interface BrokerageAccountRow {
  id: string;
  user_id: string;
  brokerage_account_id: string;
  name: string;
  institution_name: string;
  account_type: string;
  account_status: string;
  created_at: Date;
  brokerage_authorization_id: string;
  disabled_at: Date | null;
  balance_id: string | null;
  currency: string | null;
  cash: string | null;
  buying_power: string | null;
  total_value: string | null;
  last_sync: Date | null;
  balance_created_at: Date | null;
  balance_updated_at: Date | null;
}

/** The read model's rows as the views read them (the owner is the query's filter, not a field they show). */
export type BrokerageActivityRow = Omit<BrokerageActivitiesTable, 'user_id'>;
export type BrokeragePositionRow = Omit<BrokeragePositionsTable, 'user_id'>;
export type PortfolioSnapshotRow = Omit<PortfolioSnapshotsTable, 'user_id' | 'taken_at' | 'revision'>;

const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'none' });

/** `USD` → `US Dollar`; null for a code the runtime's ICU does not know. */
export function currencyNameOf(code: string | null): string | null {
  if (code === null) return null;
  try {
    return currencyNames.of(code) ?? null;
  } catch {
    return null;
  }
}

const decimal = (text: string | null): string | null => (text === null ? null : normaliseDecimal(text));
const timestamp = (at: Date | null): string | null => at?.toISOString() ?? null;

export function toBrokerageAccountListItem(row: BrokerageAccountRow): BrokerageAccountListItemResponse {
  return {
    id: row.id,
    name: row.name,
    institutionName: row.institution_name,
    accountType: row.account_type,
    accountStatus: row.account_status,
    source: 'brokerage_link',
    needsReauth: row.disabled_at !== null,
    brokerageAuthorizationId: row.brokerage_authorization_id,
    accountDetails: { id: row.brokerage_account_id, balance: decimal(row.total_value), lastSync: timestamp(row.last_sync) },
    balances:
      row.balance_id === null
        ? []
        : [{ id: row.balance_id, buyingPower: decimal(row.buying_power), cash: decimal(row.cash), currencyCode: row.currency, currencyName: currencyNameOf(row.currency), lastSync: timestamp(row.last_sync) }],
  };
}

/** The overview's balance of an account synced at least once; null before its first valuation. */
export function toBrokerageBalance(row: BrokerageAccountRow): BrokerageBalanceResponse | null {
  if (row.balance_id === null) return null;
  return {
    id: row.balance_id,
    accountId: row.id,
    userId: row.user_id,
    buyingPower: decimal(row.buying_power),
    cash: decimal(row.cash),
    createdAt: timestamp(row.balance_created_at),
    currencyCode: row.currency,
    currencyName: currencyNameOf(row.currency),
    lastSync: timestamp(row.last_sync),
    updatedAt: timestamp(row.balance_updated_at),
    brokerageAccountId: row.brokerage_account_id,
  };
}

export function toBrokerageActivity(row: BrokerageActivityRow): BrokerageActivityResponse {
  return {
    accountId: row.account_id,
    activityId: row.provider_activity_id,
    amount: decimal(row.amount),
    createdAt: timestamp(row.created_at),
    currencyCode: row.currency,
    id: row.id,
    type: row.type,
    symbol: row.symbol,
    description: row.description,
    fee: decimal(row.fee),
    price: decimal(row.price),
    units: decimal(row.units),
    tradeDate: row.trade_date,
    settlementDate: row.settlement_date,
  };
}

export function toActivityListItem(row: BrokerageActivityRow): ActivityListItemResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    type: row.type,
    symbol: row.symbol,
    description: row.description,
    currency: row.currency,
    amount: Number(row.amount),
    fee: Number(row.fee),
    price: row.price === null ? null : Number(row.price),
    units: row.units === null ? null : Number(row.units),
    tradeDate: row.trade_date,
    settlementDate: row.settlement_date,
  };
}

export function toBrokeragePosition(row: BrokeragePositionRow): BrokeragePositionResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    symbol: row.symbol,
    description: row.description,
    currency: row.currency,
    units: normaliseDecimal(row.units),
    averagePrice: normaliseDecimal(row.average_price),
    price: normaliseDecimal(row.price),
    marketValue: normaliseDecimal(row.market_value),
  };
}

export function toOverviewPortfolioSnapshot(row: PortfolioSnapshotRow): OverviewPortfolioSnapshotResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    date: row.date,
    totalValue: normaliseDecimal(row.total_value),
    cashValue: normaliseDecimal(row.cash_value),
    holdingsValue: normaliseDecimal(row.holdings_value),
    currency: row.currency,
  };
}

export function toPortfolioSnapshot(row: PortfolioSnapshotRow): PortfolioSnapshotResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    date: row.date,
    totalValue: Number(row.total_value),
    cashValue: Number(row.cash_value),
    holdingsValue: Number(row.holdings_value),
    currency: row.currency,
  };
}

/** Every account id as a key (an empty array when it has nothing), each holding its items in their order. */
export function groupByAccount<Item extends { accountId: string }>(accountIds: readonly string[], items: readonly Item[]): Record<string, Item[]> {
  const groups: Record<string, Item[]> = Object.fromEntries(accountIds.map((id) => [id, [] as Item[]]));
  for (const item of items) (groups[item.accountId] ??= []).push(item);
  return groups;
}
