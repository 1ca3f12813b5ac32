import type { Decider } from '../../../core/decider.js';
import { unhandled } from '../../../core/exhaustive.js';
import { normaliseDecimal } from '../../../core/money.js';
import type {
  BrokerageAccountEvent,
  BrokerageActivityData,
  BrokerageHoldingsRefreshed,
  BrokeragePositionData,
  PortfolioSnapshotData,
} from '../brokerage.events.js';
import { valueHoldings } from './holdings-valuation.js';

/** One investment account's data, as its stream (`brokerage-account-<accountId>`) tells it. */
export interface BrokerageAccountState {
  /** Provider activity ids already imported. */
  readonly activityIds: ReadonlySet<string>;
  readonly holdings: BrokerageHoldingsRefreshed['data'] | null;
  /** The latest day snapshotted (and its values): what the next sync fills on from. */
  readonly lastSnapshot: PortfolioSnapshotData | null;
}

export const initialBrokerageAccountState = (): BrokerageAccountState => ({ activityIds: new Set(), holdings: null, lastSnapshot: null });

export function evolveBrokerageAccount(state: BrokerageAccountState, event: BrokerageAccountEvent): BrokerageAccountState {
  switch (event.type) {
    case 'BrokerageActivitiesImported':
      return { ...state, activityIds: new Set([...state.activityIds, ...event.data.activities.map((activity) => activity.providerActivityId)]) };
    case 'BrokerageHoldingsRefreshed':
      return { ...state, holdings: event.data };
    case 'PortfolioSnapshotsTaken': {
      const latest = event.data.snapshots.reduce<PortfolioSnapshotData | null>((last, snapshot) => (last === null || snapshot.date >= last.date ? snapshot : last), state.lastSnapshot);
      return { ...state, lastSnapshot: latest };
    }
    default: {
      unhandled(event);
      return state;
    }
  }
}

/** What the provider shows of an account now; `history`: end-of-day values of days before `today`. */
export interface ProviderAccountView {
  readonly activities: readonly BrokerageActivityData[];
  readonly currency: string;
  readonly cash: string;
  readonly buyingPower: string;
  readonly positions: readonly BrokeragePositionData[];
  readonly history: readonly PortfolioSnapshotData[];
}

export type BrokerageAccountCommand =
  /**
   * One sync of the account: the activities it did not have, its holdings if they moved, and its
   * snapshots — the days after its last one up to yesterday from `history`, and today's from the
   * same valuation as the holdings. Deciding against the stream's state makes a rerun (or a run
   * after a crash, or two at once) append nothing twice.
   */
  { type: 'RecordAccountSync'; accountId: string; today: string; asOf: string; view: ProviderAccountView };

export function decideBrokerageAccount(command: BrokerageAccountCommand, state: BrokerageAccountState): BrokerageAccountEvent[] {
  switch (command.type) {
    case 'RecordAccountSync': {
      const { accountId, today, asOf, view } = command;
      const events: BrokerageAccountEvent[] = [];

      const seen = new Set(state.activityIds);
      const activities = view.activities.filter((activity) => !seen.has(activity.providerActivityId) && seen.add(activity.providerActivityId));
      if (activities.length > 0) events.push({ type: 'BrokerageActivitiesImported', data: { accountId, activities } });

      const valuation = valueHoldings(view.cash, view.positions.map((position) => position.marketValue));
      const holdings: BrokerageHoldingsRefreshed['data'] = {
        accountId, asOf, currency: view.currency, cash: valuation.cash, buyingPower: view.buyingPower,
        holdingsValue: valuation.holdingsValue, totalValue: valuation.totalValue, positions: [...view.positions],
      };
      if (state.holdings === null || holdingsMoved(state.holdings, holdings)) events.push({ type: 'BrokerageHoldingsRefreshed', data: holdings });

      const after = state.lastSnapshot?.date ?? '';
      const snapshots = view.history.filter((snapshot) => snapshot.date > after && snapshot.date < today).sort((a, b) => a.date.localeCompare(b.date));
      const todays: PortfolioSnapshotData = { date: today, totalValue: valuation.totalValue, cashValue: valuation.cash, holdingsValue: valuation.holdingsValue, currency: view.currency };
      // One snapshot per day, the later one wins: today's is taken again only when it moved.
      if (today > after || (today === after && state.lastSnapshot !== null && !sameSnapshot(state.lastSnapshot, todays))) snapshots.push(todays);
      if (snapshots.length > 0) events.push({ type: 'PortfolioSnapshotsTaken', data: { accountId, snapshots } });
      return events;
    }
    default: {
      unhandled(command.type);
      throw new Error(`Unknown brokerage account command ${(command as { type: string }).type}`);
    }
  }
}

const amount = (text: string): string => normaliseDecimal(text);

/** Anything in the valuation but the instant it was taken at. */
function holdingsMoved(known: BrokerageHoldingsRefreshed['data'], now: BrokerageHoldingsRefreshed['data']): boolean {
  if (known.currency !== now.currency || amount(known.cash) !== amount(now.cash) || amount(known.buyingPower) !== amount(now.buyingPower)) return true;
  if (known.positions.length !== now.positions.length) return true;
  return known.positions.some((position, index) => {
    const other = now.positions[index]!;
    return (
      position.symbol !== other.symbol ||
      position.description !== other.description ||
      position.currency !== other.currency ||
      amount(position.units) !== amount(other.units) ||
      amount(position.averagePrice) !== amount(other.averagePrice) ||
      amount(position.price) !== amount(other.price) ||
      amount(position.marketValue) !== amount(other.marketValue)
    );
  });
}

function sameSnapshot(a: PortfolioSnapshotData, b: PortfolioSnapshotData): boolean {
  return amount(a.totalValue) === amount(b.totalValue) && amount(a.cashValue) === amount(b.cashValue) && amount(a.holdingsValue) === amount(b.holdingsValue) && a.currency === b.currency;
}

export const brokerageAccountDecider: Decider<BrokerageAccountCommand, BrokerageAccountEvent, BrokerageAccountState> = {
  decide: decideBrokerageAccount,
  evolve: evolveBrokerageAccount,
  initialState: initialBrokerageAccountState,
};
