import type { BrokerageActivityType } from '../brokerage-link.port.js';
import { scaleProportionally, valueCents } from './brokerage-decimal.js';

/**
 * An account's activity as the sandbox plans it, and what it does to holdings: the planner replays
 * it to know what it may sell or pay dividends on, the valuation to value the account on a day.
 */
export interface PlannedActivity {
  readonly type: BrokerageActivityType;
  /** Trade date as a day number (days since 1970-01-01). */
  readonly day: number;
  readonly settlementDay: number;
  readonly symbol: string | null;
  readonly description: string;
  /** Signed effect on cash, fees included. */
  readonly amountCents: number;
  readonly feeCents: number;
  readonly priceCents: number | null;
  /** Ten-thousandths of a unit, always positive. */
  readonly units: number | null;
}

export interface Holding {
  units: number;
  costCents: number;
}

/** Average cost: a sale removes its proportional share of the cost basis. */
export function applyToHoldings(holdings: Map<string, Holding>, activity: PlannedActivity): void {
  if ((activity.type !== 'BUY' && activity.type !== 'SELL') || activity.symbol === null || activity.units === null || activity.priceCents === null) return;
  const holding = holdings.get(activity.symbol) ?? { units: 0, costCents: 0 };
  if (activity.type === 'BUY') {
    holding.costCents += valueCents(activity.units, activity.priceCents);
    holding.units += activity.units;
  } else {
    holding.costCents -= scaleProportionally(holding.costCents, activity.units, holding.units);
    holding.units -= activity.units;
  }
  holdings.set(activity.symbol, holding);
}
