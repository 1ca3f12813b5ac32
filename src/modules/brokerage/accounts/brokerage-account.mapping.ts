import type { BrokerageAccount, BrokerageActivity, BrokeragePosition, PortfolioValue } from '../brokerage-link.port.js';
import {
  type BrokerageAccountData,
  type BrokerageActivityData,
  brokerageAccountIdOf,
  brokerageActivityIdOf,
  type BrokeragePositionData,
  type PortfolioSnapshotData,
} from '../brokerage.events.js';

/** The provider's account types in the service's investment subtype vocabulary (SUBTYPES_BY_TYPE.investment). */
const SUBTYPE_OF: Readonly<Record<string, string>> = {
  individual: 'brokerage',
  roth_ira: 'roth',
  traditional_ira: 'ira',
  '401k': '401k',
};

/** An investment account's subtype in GET /accounts: its provider type mapped, `other` for one the vocabulary lacks. */
export function investmentSubtypeOf(providerAccountType: string): string {
  return SUBTYPE_OF[providerAccountType] ?? 'other';
}

/** The last four digits of a masked account number (`****1234` → `1234`), as bank masks are shown; null without any. */
export function maskOf(number: string): string | null {
  const digits = number.replace(/\D/g, '');
  return digits.length === 0 ? null : digits.slice(-4);
}

export function toBrokerageAccountData(userId: string, account: BrokerageAccount): BrokerageAccountData {
  return {
    accountId: brokerageAccountIdOf(userId, account.id),
    brokerageAccountId: account.id,
    name: account.name,
    number: account.number,
    institutionName: account.institutionName,
    accountType: account.accountType,
    accountStatus: account.status,
    currency: account.currency,
  };
}

export function toActivityData(accountId: string, activity: BrokerageActivity): BrokerageActivityData {
  return {
    id: brokerageActivityIdOf(accountId, activity.id),
    providerActivityId: activity.id,
    type: activity.type,
    symbol: activity.symbol,
    description: activity.description,
    currency: activity.currency,
    amount: activity.amount,
    fee: activity.fee,
    price: activity.price,
    units: activity.units,
    tradeDate: activity.tradeDate,
    settlementDate: activity.settlementDate,
  };
}

export function toPositionData(position: BrokeragePosition): BrokeragePositionData {
  const { symbol, description, currency, units, averagePrice, price, marketValue } = position;
  return { symbol, description, currency, units, averagePrice, price, marketValue };
}

export function toSnapshotData(value: PortfolioValue, currency: string): PortfolioSnapshotData {
  return { date: value.date, totalValue: value.totalValue, cashValue: value.cashValue, holdingsValue: value.holdingsValue, currency };
}
