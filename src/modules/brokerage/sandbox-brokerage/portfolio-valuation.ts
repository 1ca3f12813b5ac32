import type { BrokerageBalance, BrokeragePosition, PortfolioValue } from '../brokerage-link.port.js';
import { formatIsoDate, type SandboxMarket } from '../../quotes/sandbox-market/index.js';
import { averagePriceScaled, formatCents, formatScaled, valueCents } from './brokerage-decimal.js';
import { applyToHoldings, type Holding, type PlannedActivity } from './planned-activity.js';

/**
 * Everything about an account derived from its activities and the sandbox market: holdings with
 * average cost, cash, and end-of-day values. Holdings and cash change on the trade date.
 */

function stateAt(activities: readonly PlannedActivity[], day: number): { holdings: Map<string, Holding>; cashCents: number } {
  const holdings = new Map<string, Holding>();
  let cashCents = 0;
  for (const activity of activities) {
    if (activity.day > day) break;
    applyToHoldings(holdings, activity);
    cashCents += activity.amountCents;
  }
  return { holdings, cashCents };
}

export function balanceAt(activities: readonly PlannedActivity[], day: number, accountId: string): BrokerageBalance {
  const cash = formatCents(stateAt(activities, day).cashCents);
  // A cash account: buying power is the settled-or-not cash itself, no margin.
  return { accountId, currency: 'USD', cash, buyingPower: cash };
}

export function positionsAt(activities: readonly PlannedActivity[], day: number, market: SandboxMarket, accountId: string): BrokeragePosition[] {
  const date = formatIsoDate(day);
  return [...stateAt(activities, day).holdings.entries()]
    .filter(([, holding]) => holding.units > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([symbol, holding]) => {
      const priceCents = market.priceCentsOn(symbol, date);
      return {
        accountId,
        symbol,
        description: market.security(symbol)?.name ?? symbol,
        currency: 'USD',
        units: formatScaled(holding.units),
        averagePrice: formatScaled(averagePriceScaled(holding.costCents, holding.units)),
        price: formatCents(priceCents),
        marketValue: formatCents(valueCents(holding.units, priceCents)),
      };
    });
}

/**
 * One value per calendar day from the first activity (or `firstDay`, if later) to `lastDay`;
 * weekends carry Friday's closes. Days before `firstDay` are replayed but not valued: pricing
 * every day is what costs.
 */
export function portfolioValues(activities: readonly PlannedActivity[], market: SandboxMarket, lastDay: number, firstDay = Number.NEGATIVE_INFINITY): PortfolioValue[] {
  const values: PortfolioValue[] = [];
  if (activities.length === 0) return values;
  const holdings = new Map<string, Holding>();
  let cashCents = 0;
  let next = 0;
  for (let day = (activities[0] as PlannedActivity).day; day <= lastDay; day += 1) {
    for (; next < activities.length && (activities[next] as PlannedActivity).day <= day; next += 1) {
      applyToHoldings(holdings, activities[next] as PlannedActivity);
      cashCents += (activities[next] as PlannedActivity).amountCents;
    }
    if (day < firstDay) continue;
    const date = formatIsoDate(day);
    let holdingsCents = 0;
    for (const [symbol, holding] of holdings) if (holding.units > 0) holdingsCents += valueCents(holding.units, market.priceCentsOn(symbol, date));
    values.push({ date, totalValue: formatCents(holdingsCents + cashCents), cashValue: formatCents(cashCents), holdingsValue: formatCents(holdingsCents) });
  }
  return values;
}
