import type { BrokerageAccount, BrokerageActivity, BrokerageAuthorization } from '../brokerage-link.port.js';
import { formatIsoDate, hashText, mix32, type SandboxMarket } from '../../quotes/sandbox-market/index.js';
import { formatCents, formatScaled } from './brokerage-decimal.js';
import type { PlannedActivity } from './planned-activity.js';
import { planPortfolio, STRATEGIES } from './portfolio.generator.js';

/**
 * The accounts a sandbox authorization holds, and each one's history: everything follows from
 * the sandbox's seed, the authorization's id and brokerage, the day it was opened and the market,
 * so the in-memory sandbox and the one kept in PostgreSQL derive the same accounts the same way.
 */
export const SANDBOX_ACCOUNT_KINDS = ['individual', 'roth_ira'] as const;
export type SandboxAccountKind = (typeof SANDBOX_ACCOUNT_KINDS)[number];

export interface SandboxAccountHistory {
  readonly account: BrokerageAccount;
  readonly planned: PlannedActivity[];
  readonly activities: BrokerageActivity[];
}

/** A UUID-shaped id that only the seed and the parts decide. */
export function uuidFrom(seed: number, ...parts: readonly (string | number)[]): string {
  const base = hashText(parts.join('\u0000'), seed);
  const hex = [1, 2, 3, 4].map((i) => mix32(base + Math.imul(i, 0x9e3779b9)).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** The account itself, without planning its history (cheap: listing accounts needs no more). */
export function sandboxAccount(seed: number, authorization: Pick<BrokerageAuthorization, 'id' | 'brokerage'>, kind: SandboxAccountKind): BrokerageAccount {
  const id = uuidFrom(seed, 'account', authorization.id, kind);
  return {
    id,
    authorizationId: authorization.id,
    name: kind === 'individual' ? 'Individual Brokerage' : 'Roth IRA',
    number: `****${String(mix32(hashText(id, 7)) % 10000).padStart(4, '0')}`,
    institutionName: authorization.brokerage.name,
    accountType: kind,
    status: 'open',
    currency: 'USD',
  };
}

/** The account and its activities from the first one up to `asOf`; the same `openedOn` always gives the same days before `asOf`. */
export function sandboxAccountHistory(options: {
  readonly seed: number;
  readonly authorization: Pick<BrokerageAuthorization, 'id' | 'brokerage'>;
  readonly kind: SandboxAccountKind;
  readonly openedOn: string;
  readonly asOf: string;
  readonly market: SandboxMarket;
}): SandboxAccountHistory {
  const { seed, market } = options;
  const account = sandboxAccount(seed, options.authorization, options.kind);
  const planned = planPortfolio({ seed: hashText(account.id, seed), asOf: options.asOf, openedOn: options.openedOn, market, strategy: STRATEGIES[options.kind] });
  const activities = planned.map((activity, index): BrokerageActivity => ({
    id: uuidFrom(seed, 'activity', account.id, index),
    accountId: account.id,
    type: activity.type,
    symbol: activity.symbol,
    description: activity.description,
    currency: 'USD',
    amount: formatCents(activity.amountCents),
    fee: formatCents(activity.feeCents),
    price: activity.priceCents === null ? null : formatCents(activity.priceCents),
    units: activity.units === null ? null : formatScaled(activity.units),
    tradeDate: formatIsoDate(activity.day),
    settlementDate: formatIsoDate(activity.settlementDay),
  }));
  return { account, planned, activities };
}
