import { civilFromDay, clampedDayOfMonth, isWeekend, nextBusinessDay, type DayNumber } from '../../../core/calendar-day.js';
import { chance, pick, randomInt, randomStream, type Random } from '../../../core/seeded-random.js';
import { TRIP_CITIES } from './sandbox-institutions.js';
import { COFFEE_SHOPS, EVERYDAY_MERCHANTS, TRAVEL_MERCHANTS } from './sandbox-merchants.js';
import { bankPayee, incomePayee, merchantPayee, type Payee } from './sandbox-payees.js';
import { addDraft, cardPostLag, pickName, type AccountRole, type LedgerDraft } from './sandbox-ledger.js';

/**
 * Spending that is deliberately not a planted stream: everyday card purchases, the favourite
 * coffee shop (frequent but irregular), purchases that get refunded, trips, ATM cash and fees.
 */

interface WeightedPayees {
  readonly payees: readonly Payee[];
  readonly minCents: readonly number[];
  readonly maxCents: readonly number[];
  /** 1024 slots, each naming a payee in proportion to its weight: an O(1) weighted pick. */
  readonly slots: Uint16Array;
}

function everydayPayees(ledger: LedgerDraft, random: Random): WeightedPayees {
  const profiles = EVERYDAY_MERCHANTS.filter((profile) => profile.weight > 0);
  const total = profiles.reduce((sum, profile) => sum + profile.weight, 0);
  const slots = new Uint16Array(1024);
  let cumulative = 0;
  profiles.forEach((profile, index) => {
    const start = Math.round((cumulative / total) * slots.length);
    cumulative += profile.weight;
    slots.fill(index, start, Math.round((cumulative / total) * slots.length));
  });
  return {
    payees: profiles.map((profile) => merchantPayee(profile, ledger.home, random)),
    minCents: profiles.map((profile) => profile.minCents),
    maxCents: profiles.map((profile) => profile.maxCents),
    slots,
  };
}

/** Skewed towards `min`: most card purchases are small, a few are large. */
function skewedCents(random: Random, minCents: number, maxCents: number): number {
  const u = random();
  return Math.round(minCents + (maxCents - minCents) * u * u);
}

const isTipped = (payee: Payee): boolean => payee.category === 'FOOD_AND_DRINK_RESTAURANT' && payee.channel === 'in store';

/** Which everyday purchases to plan: how many, and over which days (inclusive). */
export interface EverydaySpan {
  readonly count: number;
  readonly from: DayNumber;
  readonly to: DayNumber;
}

/**
 * Purchases spread over each span, a little busier at weekends. The spans after the first draw
 * from their own random streams, so adding days after `asOf` leaves the first span untouched.
 */
export function addEverydaySpending(ledger: LedgerDraft, spans: readonly EverydaySpan[]): void {
  const random = randomStream(ledger.seed, 'everyday');
  const catalog = everydayPayees(ledger, random);
  spans.forEach((span, index) => addPurchases(ledger, catalog, span, index === 0 ? random : randomStream(ledger.seed, `everyday:${index}`)));
}

function addPurchases(ledger: LedgerDraft, catalog: WeightedPayees, { count, from, to }: EverydaySpan, random: Random): void {
  const span = to - from + 1;
  for (let i = 0; i < count; i += 1) {
    let day = from + Math.floor(random() * span);
    if (!isWeekend(day) && random() < 0.12) day = from + Math.floor(random() * span);
    const index = catalog.slots[Math.floor(random() * 1024)] as number;
    const payee = catalog.payees[index] as Payee;
    const cents = -skewedCents(random, catalog.minCents[index] as number, catalog.maxCents[index] as number);
    const viaCard = payee.channel !== 'other';
    const account: AccountRole = viaCard && random() < 0.78 ? 'credit' : 'checking';
    addDraft(ledger, {
      account,
      day,
      cents,
      pendingCents: isTipped(payee) ? Math.round(cents / 1.18) : cents,
      payee,
      name: pickName(random, payee, 0.6),
      postLag: viaCard ? cardPostLag(random) : 0,
    });
  }
}

const COFFEE_ORDERS = [395, 425, 475, 550, 585, 625, 710, 845];

export function addCoffeeHabit(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'coffee');
  const payee = merchantPayee(pick(random, COFFEE_SHOPS), ledger.home, random);
  for (let day = ledger.firstDay; day <= ledger.lastDay; day += 1) {
    if (!chance(random, isWeekend(day) ? 0.2 : 0.42)) continue;
    const cents = -(pick(random, COFFEE_ORDERS) + (chance(random, 0.25) ? 375 : 0));
    const account: AccountRole = chance(random, 0.85) ? 'credit' : 'checking';
    addDraft(ledger, { account, day, cents, payee, name: pickName(random, payee, 0.8), postLag: cardPostLag(random) });
  }
}

const REFUNDABLE = new Set(['amazon', 'uniqlo', 'nike', 'best-buy', 'target', 'etsy', 'sephora']);

/** Purchases returned 5–20 days later; the refund posts without a pending phase. */
export function addReturnedPurchases(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'returns');
  const profiles = EVERYDAY_MERCHANTS.filter((profile) => REFUNDABLE.has(profile.key));
  for (let day = ledger.firstDay + randomInt(random, 3, 40); day <= ledger.lastDay - 25; day += randomInt(random, 25, 60)) {
    const profile = pick(random, profiles);
    const payee = merchantPayee(profile, ledger.home, random);
    const cents = -skewedCents(random, Math.max(profile.minCents, 2000), profile.maxCents);
    const account: AccountRole = chance(random, 0.8) ? 'credit' : 'checking';
    const purchase = addDraft(ledger, { account, day, cents, payee, name: pickName(random, payee), postLag: cardPostLag(random) });
    const refundCents = chance(random, 0.7) ? -cents : Math.round(-cents * (0.3 + random() * 0.5));
    addDraft(ledger, { account, day: purchase.postedDay + randomInt(random, 5, 20), cents: refundCents, payee, name: pickName(random, payee) });
  }
}

/** One domestic and one foreign trip; each foreign purchase draws a 3% fee on the card. */
export function addTrips(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'trips');
  const foreignFee = bankPayee(ledger.institution, ['FOREIGN TRANSACTION FEE'], 'BANK_FEES_FOREIGN_TRANSACTION_FEES');
  TRIP_CITIES.forEach((city, index) => {
    const start = ledger.asOf - (index === 0 ? randomInt(random, 200, 300) : randomInt(random, 400, 520));
    const nights = randomInt(random, 3, 6);
    const spend = (profile: (typeof TRAVEL_MERCHANTS)[keyof typeof TRAVEL_MERCHANTS], day: DayNumber, foreign: boolean): void => {
      const payee = merchantPayee(profile, city, random);
      const draft = addDraft(ledger, { account: 'credit', day, cents: -skewedCents(random, profile.minCents, profile.maxCents), payee, name: pickName(random, payee), postLag: cardPostLag(random) });
      if (foreign) addDraft(ledger, { account: 'credit', day: draft.postedDay, cents: Math.round(draft.cents * 0.03), payee: foreignFee, name: 'FOREIGN TRANSACTION FEE' });
    };
    spend(TRAVEL_MERCHANTS.flight, start - randomInt(random, 21, 45), false);
    for (let night = 0; night < nights; night += randomInt(random, 1, 2)) spend(TRAVEL_MERCHANTS.dining, start + night, city.foreign);
    if (!city.foreign) spend(TRAVEL_MERCHANTS.rentalCar, start + nights, false);
    spend(TRAVEL_MERCHANTS.lodging, start + nights, city.foreign);
  });
}

/** Cash now and then; an out-of-network machine adds the bank's fee and the operator's. */
export function addCashAndFees(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'cash');
  const atm = bankPayee(ledger.institution, [`ATM WITHDRAWAL ${ledger.home.city.toUpperCase()} ${ledger.home.region}`, 'NON-BANK ATM WITHDRAWAL'], 'TRANSFER_OUT_WITHDRAWAL', 'in store');
  const bankFee = bankPayee(ledger.institution, ['ATM FEE - OUT OF NETWORK'], 'BANK_FEES_ATM_FEES');
  const operatorFee = bankPayee(ledger.institution, ['NON-BANK ATM OPERATOR FEE'], 'BANK_FEES_ATM_FEES');
  for (let day = ledger.firstDay + randomInt(random, 0, 20); day <= ledger.lastDay; day += randomInt(random, 18, 50)) {
    const outOfNetwork = chance(random, 0.4);
    addDraft(ledger, { account: 'checking', day, cents: -pick(random, [4000, 6000, 8000, 10000, 20000]), payee: atm, name: atm.names[outOfNetwork ? 1 : 0] as string });
    if (!outOfNetwork) continue;
    addDraft(ledger, { account: 'checking', day, cents: -300, payee: bankFee, name: bankFee.names[0] as string });
    addDraft(ledger, { account: 'checking', day, cents: -pick(random, [250, 299, 350]), payee: operatorFee, name: operatorFee.names[0] as string });
  }
  const serviceFee = bankPayee(ledger.institution, ['MONTHLY SERVICE FEE'], 'BANK_FEES_OTHER_BANK_FEES');
  addDraft(ledger, { account: 'checking', day: ledger.firstDay + randomInt(random, 30, 600), cents: -1200, payee: serviceFee, name: 'MONTHLY SERVICE FEE' });
}

/** A single tax refund in the spring of the last full year: income, but not a stream. */
export function addTaxRefund(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'tax-refund');
  const { year } = civilFromDay(ledger.asOf);
  const day = nextBusinessDay(clampedDayOfMonth(year - 1, 4, randomInt(random, 1, 28)));
  if (day < ledger.firstDay) return;
  const irs = incomePayee({ name: 'Internal Revenue Service', website: 'irs.gov' }, ['IRS TREAS 310 TAX REF'], 'INCOME_TAX_REFUND', true);
  addDraft(ledger, { account: 'checking', day, cents: randomInt(random, 40000, 240000), payee: irs, name: 'IRS TREAS 310 TAX REF' });
}
