import { formatIsoDate, hashText, mix32, parseIsoDate, sessionDay, sessionIndex, type SandboxMarket } from '../../quotes/sandbox-market/index.js';
import { UNIT_SCALE, valueCents } from './brokerage-decimal.js';
import { applyToHoldings, type Holding, type PlannedActivity } from './planned-activity.js';

export interface AccountStrategy {
  readonly kind: 'individual' | 'roth_ira';
  readonly targets: readonly { readonly symbol: string; readonly weight: number }[];
}

export const STRATEGIES: Record<AccountStrategy['kind'], AccountStrategy> = {
  individual: {
    kind: 'individual',
    targets: [
      { symbol: 'VTI', weight: 0.4 }, { symbol: 'AAPL', weight: 0.12 }, { symbol: 'MSFT', weight: 0.12 },
      { symbol: 'NVDA', weight: 0.12 }, { symbol: 'BRK.B', weight: 0.12 }, { symbol: 'GOOGL', weight: 0.12 },
    ],
  },
  roth_ira: { kind: 'roth_ira', targets: [{ symbol: 'VTI', weight: 0.6 }, { symbol: 'VXUS', weight: 0.25 }, { symbol: 'BND', weight: 0.15 }] },
};

const CASH_BUFFER_CENTS = 5000;

const nextSession = (day: number): number => sessionDay(sessionIndex(day - 1) + 1);

function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = mix32(state + 0x9e3779b9);
    return state / 4294967296;
  };
}

/**
 * An account's life, in order: funding about two years before `openedOn`, monthly contributions
 * each invested at that day's sandbox close, quarterly dividends on what is held, a yearly fee, a
 * yearly trim of the largest stock position, and one withdrawal to the bank, up to `asOf`. Cash
 * never goes negative.
 *
 * The history is anchored on `openedOn` (default `asOf`), not on `asOf`: each step depends only on
 * the steps before it, so planning to a later `asOf` only adds days — what a day showed yesterday
 * it still shows today. (Anchored on `asOf`, the whole history would shift as the clock moves.)
 */
export function planPortfolio(options: { seed: number; asOf: string; openedOn?: string; market: SandboxMarket; strategy: AccountStrategy }): PlannedActivity[] {
  const { market, strategy } = options;
  const random = randomFrom(hashText(strategy.kind, options.seed));
  const asOf = parseIsoDate(options.asOf);
  const firstDay = nextSession(parseIsoDate(options.openedOn ?? options.asOf) - 730 + Math.floor(random() * 20));
  const price = (symbol: string, day: number): number => market.priceCentsOn(symbol, formatIsoDate(day));
  const isStock = (symbol: string): boolean => market.security(symbol)?.kind === 'stock';
  const activities: PlannedActivity[] = [];
  const holdings = new Map<string, Holding>();
  let cash = 0;

  const record = (activity: Omit<PlannedActivity, 'settlementDay'> & { settlementDay?: number }): void => {
    const planned = { ...activity, settlementDay: activity.settlementDay ?? activity.day };
    activities.push(planned);
    applyToHoldings(holdings, planned);
    cash += activity.amountCents;
  };
  const trade = (type: 'BUY' | 'SELL', symbol: string, day: number, units: number, feeCents: number): void => {
    const priceCents = price(symbol, day);
    const gross = valueCents(units, priceCents);
    const verb = type === 'BUY' ? 'Bought' : 'Sold';
    record({
      type, day, settlementDay: nextSession(day + 1), symbol, description: `${verb} ${market.security(symbol)?.name ?? symbol}`,
      amountCents: type === 'BUY' ? -gross - feeCents : gross - feeCents, feeCents, priceCents, units,
    });
  };
  const invest = (day: number): void => {
    const budget = cash - CASH_BUFFER_CENTS;
    for (const { symbol, weight } of strategy.targets) {
      const priceCents = price(symbol, day);
      const dollars = Math.floor(budget * weight);
      const units = isStock(symbol) ? Math.floor(dollars / priceCents) * UNIT_SCALE : Math.floor((dollars * UNIT_SCALE) / priceCents);
      if (units > 0) trade('BUY', symbol, day, units, 0);
    }
  };
  const fund = (type: 'CONTRIBUTION' | 'TRANSFER', day: number, cents: number, description: string): void => {
    record({ type, day, symbol: null, description, amountCents: cents, feeCents: 0, priceCents: null, units: null });
  };

  fund(strategy.kind === 'individual' ? 'TRANSFER' : 'CONTRIBUTION', firstDay, (100 + Math.floor(random() * 200)) * 10000, strategy.kind === 'individual' ? 'Transfer in from external brokerage' : 'Roth IRA contribution');
  invest(firstDay);
  const monthly = (30 + Math.floor(random() * 70)) * 1000;
  const { year, month } = civil(firstDay);
  for (let index = 1; ; index += 1) {
    const monthStart = dayOfMonth(year, month + index, 1);
    const contributionDay = nextSession(monthStart);
    if (contributionDay > asOf) break;
    const m = civil(monthStart).month;
    fund('CONTRIBUTION', contributionDay, monthly, strategy.kind === 'individual' ? 'Recurring deposit' : 'Roth IRA contribution');
    invest(contributionDay);
    if (m === 2 && strategy.kind === 'individual') trimLargestStock(nextSession(dayOfMonth(year, month + index, 10)), index > 12);
    if (m === 1) chargeFee(nextSession(dayOfMonth(year, month + index, 15)));
    if (m % 3 === 0) payDividends(nextSession(dayOfMonth(year, month + index, 20)));
  }
  return activities;

  function payDividends(day: number): void {
    if (day > asOf) return;
    for (const [symbol, holding] of [...holdings.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const yieldRate = market.security(symbol)?.dividendYield ?? 0;
      const cents = Math.round((valueCents(holding.units, price(symbol, day)) * yieldRate) / 4);
      if (holding.units > 0 && cents > 0) record({ type: 'DIVIDEND', day, symbol, description: `${symbol} cash dividend`, amountCents: cents, feeCents: 0, priceCents: null, units: null });
    }
  }

  function chargeFee(day: number): void {
    if (day > asOf || cash < 2500) return;
    record({ type: 'FEE', day, symbol: null, description: 'Annual account maintenance fee', amountCents: -2500, feeCents: 2500, priceCents: null, units: null });
  }

  /** Sells a quarter of the largest stock position; the second year's proceeds go to the bank. */
  function trimLargestStock(day: number, withdraw: boolean): void {
    if (day > asOf) return;
    const stocks = [...holdings.entries()].filter(([symbol, holding]) => isStock(symbol) && holding.units >= 4 * UNIT_SCALE);
    if (stocks.length === 0) return;
    const [symbol, holding] = stocks.reduce((best, entry) => (valueCents(entry[1].units, price(entry[0], day)) > valueCents(best[1].units, price(best[0], day)) ? entry : best));
    const units = Math.floor(holding.units / 4 / UNIT_SCALE) * UNIT_SCALE;
    // The SEC fee on sales: $27.80 per million, at least a cent.
    trade('SELL', symbol, day, units, Math.max(1, Math.round(valueCents(units, price(symbol, day)) * 0.0000278)));
    if (withdraw) fund('TRANSFER', day, -Math.max(0, cash - CASH_BUFFER_CENTS), 'Transfer to linked bank account');
  }
}

function civil(day: number): { year: number; month: number } {
  const [year, month] = formatIsoDate(day).split('-').map(Number) as [number, number];
  return { year, month };
}

/** A day in a month counted from `year`'s January (month 13 is next January). */
function dayOfMonth(year: number, month: number, dayOfMonth: number): number {
  const y = year + Math.floor((month - 1) / 12);
  const m = ((month - 1) % 12) + 1;
  return parseIsoDate(`${y}-${String(m).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`);
}
