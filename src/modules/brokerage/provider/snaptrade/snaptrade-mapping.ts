import type { Account, AccountPosition, AccountUniversalActivity, Balance, BrokerageAuthorization as SnapTradeAuthorization } from 'snaptrade-typescript-sdk';
import { toDecimalString } from '../../../../core/money.js';
import type { BrokerageAccount, BrokerageActivity, BrokerageActivityType, BrokerageAuthorization, BrokerageBalance, BrokeragePosition } from '../../brokerage-link.port.js';
import { multipliedToCents } from './exact-decimal.js';

/** SnapTrade's objects in the port's terms; what the port has no place for is left out, never guessed into another meaning. */

/** Units and prices keep up to eight places (fractional shares); money four. */
export function decimalOf(value: number, places = 8): string {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
  const text = /e/i.test(String(value)) ? value.toFixed(places) : String(value);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
const money = (value: number | null | undefined): string => toDecimalString(value ?? 0);

/** `2024-08-20 21:56:19.123935+00:00` and ISO forms alike, to UTC milliseconds; null when not a time. */
export function instantOf(text: string | null | undefined): string | null {
  if (!text) return null;
  const normalised = text.trim().replace(' ', 'T').replace(/(\.\d{3})\d+/, '$1');
  const ms = Date.parse(normalised);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

const dayOf = (text: string | null | undefined): string | null => (text && /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null);

export const DISABLED_REASON = 'The brokerage ended the connection; reconnect to resume syncing';

export function authorizationOf(authorization: SnapTradeAuthorization): BrokerageAuthorization {
  const brokerage = authorization.brokerage ?? {};
  const disabled = authorization.disabled === true;
  return {
    id: authorization.id ?? '',
    brokerage: {
      id: brokerage.slug ?? brokerage.id ?? 'unknown',
      name: brokerage.display_name ?? brokerage.name ?? 'Brokerage',
      logo: brokerage.aws_s3_square_logo_url ?? brokerage.aws_s3_logo_url ?? null,
    },
    status: disabled ? 'disabled' : 'active',
    needsReconnect: disabled,
    disabledReason: disabled ? DISABLED_REASON : null,
    createdAt: instantOf(authorization.created_date) ?? new Date(0).toISOString(),
  };
}

/** The brokerage's own words for an account type (`raw_type`), read into the port's few. */
export function accountTypeOf(rawType: string | null | undefined): BrokerageAccount['accountType'] {
  const type = (rawType ?? '').toLowerCase();
  if (type.includes('roth')) return 'roth_ira';
  if (/401\s*\(?k/.test(type)) return '401k';
  if (/\bira\b|rrsp|rollover|\bsep\b/.test(type)) return 'traditional_ira';
  if (/margin|\bcash\b|individual|joint|taxable|brokerage/.test(type)) return 'individual';
  return 'other';
}

/** SnapTrade lists bank deposit and credit-line accounts too: only investment accounts (or uncategorised ones) are brokerage accounts. */
export const isInvestmentAccount = (account: Account): boolean => account.account_category === null || account.account_category === undefined || account.account_category === 'INVESTMENT';

/** The account number masked to its last four digits, as the sandbox gives it: the service keeps no full account number. */
export function maskedNumber(number: string): string {
  const digits = number.replace(/\D/g, '');
  return digits.length === 0 ? '****' : `****${digits.slice(-4)}`;
}

export function accountOf(account: Account): BrokerageAccount {
  return {
    id: account.id,
    authorizationId: account.brokerage_authorization,
    name: account.name ?? `${account.institution_name} ${maskedNumber(account.number)}`,
    number: maskedNumber(account.number),
    institutionName: account.institution_name,
    accountType: accountTypeOf(account.raw_type ?? (account.meta?.type as string | undefined)),
    status: account.status === 'closed' || account.status === 'archived' ? 'closed' : 'open',
    currency: account.balance?.total?.currency ?? 'USD',
  };
}

/** The account's balance in its own currency (SnapTrade lists one per currency held). */
export function balanceOf(accountId: string, currency: string, balances: readonly Balance[]): BrokerageBalance {
  const balance = balances.find((candidate) => candidate.currency?.code === currency) ?? balances[0];
  return {
    accountId,
    currency: balance?.currency?.code ?? currency,
    cash: money(balance?.cash),
    buyingPower: money(balance?.buying_power ?? balance?.cash),
  };
}

/** Securities held by symbol; options, futures and CFDs are left out, as are cash equivalents SnapTrade already counts in cash. */
const SECURITY_KINDS = new Set(['stock', 'etf', 'mutualfund', 'cef', 'adr', 'crypto', 'other']);

export function positionsOf(accountId: string, currency: string, positions: readonly AccountPosition[]): BrokeragePosition[] {
  return positions.flatMap((position) => {
    const instrument = position.instrument as { kind?: string; symbol?: string; description?: string | null; currency?: string | null };
    if (!SECURITY_KINDS.has(instrument.kind ?? '') || !instrument.symbol || position.cash_equivalent === true || position.units === null || position.units === undefined) return [];
    const price = position.price ?? '0';
    return [
      {
        accountId,
        symbol: instrument.symbol,
        description: instrument.description ?? instrument.symbol,
        currency: position.currency ?? instrument.currency ?? currency,
        units: position.units,
        averagePrice: position.cost_basis ?? '0',
        price,
        marketValue: multipliedToCents(position.units, price),
      },
    ];
  });
}

const TYPE_OF: Readonly<Record<string, BrokerageActivityType>> = {
  BUY: 'BUY',
  REI: 'BUY',
  SELL: 'SELL',
  DIVIDEND: 'DIVIDEND',
  SUBSTITUTE_DIVIDEND: 'DIVIDEND',
  INTEREST: 'DIVIDEND',
  FEE: 'FEE',
  TAX: 'FEE',
  CONTRIBUTION: 'CONTRIBUTION',
  WITHDRAWAL: 'TRANSFER',
  TRANSFER: 'TRANSFER',
  EXTERNAL_ASSET_TRANSFER_IN: 'TRANSFER',
  EXTERNAL_ASSET_TRANSFER_OUT: 'TRANSFER',
};

/**
 * An activity that moves cash, in the port's types: a reinvested dividend is a buy, interest is
 * income like a dividend, a tax is a fee, a withdrawal a transfer out. Splits, option events and
 * adjustments (no cash moved, or not a security the port holds) and undated ones are left out.
 * SnapTrade already signs amounts by their effect on cash, as the port does.
 */
export function activityOf(accountId: string, currency: string, activity: AccountUniversalActivity): BrokerageActivity | null {
  const type = TYPE_OF[activity.type ?? ''];
  const tradeDate = dayOf(activity.trade_date);
  if (type === undefined || tradeDate === null || !activity.id) return null;
  const trade = type === 'BUY' || type === 'SELL';
  const units = Math.abs(activity.units ?? 0);
  const price = Math.abs(activity.price ?? 0);
  const fee = Math.abs(activity.fee ?? 0);
  const amount = activity.amount ?? (type === 'BUY' ? -(units * price + fee) : type === 'SELL' ? units * price - fee : 0);
  return {
    id: activity.id,
    accountId,
    type,
    symbol: (activity.symbol as { symbol?: string } | null | undefined)?.symbol ?? null,
    description: activity.description || activity.type || type,
    currency: activity.currency?.code ?? currency,
    amount: money(Math.round(amount * 10_000) / 10_000),
    fee: money(fee),
    price: trade ? decimalOf(price) : null,
    units: trade ? decimalOf(units) : null,
    tradeDate,
    settlementDate: dayOf(activity.settlement_date) ?? tradeDate,
  };
}
