import { addMonths, civilFromDay, clampedDayOfMonth, nextBusinessDay, previousBusinessDay, weekday, type DayNumber } from '../../../core/calendar-day.js';
import { chance, pick, randomInt, randomStream, type Random } from '../../../core/seeded-random.js';
import { EMPLOYERS } from './sandbox-institutions.js';
import { STREAM_MERCHANTS } from './sandbox-merchants.js';
import { bankPayee, descriptorVariants, incomePayee, merchantPayee, type Payee } from './sandbox-payees.js';
import type { PlantedStreamFrequency } from './sandbox-history.js';
import { addDraft, cardPostLag, pickName, registerStream, type AccountRole, type LedgerDraft } from './sandbox-ledger.js';

/**
 * The planted recurring streams: paychecks, rent, utilities, subscriptions, a loan payment.
 * `settle` decides how a scheduled date becomes a posting: payroll moves to the previous business
 * day, ACH bills to the next one (sometimes a day later still), card charges authorise on the
 * scheduled day and post one to three days later. Either way a posting stays within 3 days of it.
 */
interface StreamPlan {
  readonly key: string;
  readonly account: AccountRole;
  readonly payee: Payee;
  readonly frequency: PlantedStreamFrequency;
  readonly settle: 'payroll' | 'ach' | 'card';
  /** The nominal date of occurrence `index` (increasing). */
  readonly nominal: (index: number) => DayNumber;
  readonly cents: (index: number, day: DayNumber, random: Random) => number;
  readonly startDay?: DayNumber;
  /** Set on a stream the sandbox ends: nothing is scheduled after this day. */
  readonly endDay?: DayNumber;
  readonly skipChance?: number;
  /** Occurrence indexes that never happen (a gym freeze). */
  readonly skipped?: readonly number[];
  /** The same amount lands on another own account (a loan payment received). */
  readonly mirror?: { readonly account: AccountRole; readonly payee: Payee };
}

const cents = (dollars: number): number => Math.round(dollars * 100);

function monthly(firstDay: DayNumber, dayOfMonth: number): (index: number) => DayNumber {
  const { year, month } = civilFromDay(firstDay);
  return (index) => {
    const anchor = clampedDayOfMonth(year, month, 1);
    const { year: y, month: m } = civilFromDay(addMonths(anchor, index));
    return clampedDayOfMonth(y, m, dayOfMonth);
  };
}

function semiMonthly(firstDay: DayNumber): (index: number) => DayNumber {
  const { year, month } = civilFromDay(firstDay);
  return (index) => {
    const { year: y, month: m } = civilFromDay(addMonths(clampedDayOfMonth(year, month, 1), Math.floor(index / 2)));
    return index % 2 === 0 ? clampedDayOfMonth(y, m, 15) : clampedDayOfMonth(y, m, 31);
  };
}

function everyNDays(anchor: DayNumber, days: number): (index: number) => DayNumber {
  return (index) => anchor + index * days;
}

function firstWeekday(from: DayNumber, targetWeekday: number): DayNumber {
  return from + ((targetWeekday - weekday(from) + 7) % 7);
}

function streamPlans(ledger: LedgerDraft, random: Random): StreamPlan[] {
  const { firstDay, asOf, home, institution } = ledger;
  const payee = (profile: (typeof STREAM_MERCHANTS)[keyof typeof STREAM_MERCHANTS]): Payee => merchantPayee(profile, home, random);
  const employerIndex = randomInt(random, 0, EMPLOYERS.length - 1);
  const mainEmployer = EMPLOYERS[employerIndex]!;
  const sideEmployer = EMPLOYERS[(employerIndex + 2) % EMPLOYERS.length]!;
  const pay = cents(randomInt(random, 2250, 2900) + random());
  const sidePay = cents(randomInt(random, 1150, 1700) + random());
  const rent = randomInt(random, 33, 48) * 5000;
  const power = randomInt(random, 85, 140);
  const water = randomInt(random, 38, 62);
  const netflixDay = randomInt(random, 5, 27);
  const raiseAt = randomInt(random, 24, 30);
  const renewalAt = randomInt(random, 10, 14);
  const priceChangeAt = randomInt(random, 9, 13);
  const hellofreshBox = cents(pick(random, [59.94, 64.93, 71.92]));
  const loanPayment = cents(randomInt(random, 280, 520) + random());
  const insurance = cents(98.4 + randomInt(random, 0, 7) * 10);
  const primeRenewal = firstDay + randomInt(random, 0, 300);
  const varying = (base: number, spread: number, r: Random): number => Math.round(base * (1 + (r() * 2 - 1) * spread) * 100);
  const seasonal = (day: DayNumber): number => Math.cos(((civilFromDay(day).month - 1) / 12) * 2 * Math.PI) * 0.14;

  return [
    {
      key: 'payroll-biweekly', account: 'checking', frequency: 'BIWEEKLY', settle: 'payroll',
      payee: incomePayee(mainEmployer, descriptorVariants([`${mainEmployer.payrollDescriptor} PPD ID: ##########`], home, random).slice(0, 1), 'INCOME_WAGES', false),
      nominal: everyNDays(firstWeekday(firstDay, 5) + 7 * randomInt(random, 0, 1), 14),
      cents: (index, _day, r) => (index >= raiseAt ? Math.round(pay * 1.035) : pay) + (chance(r, 0.15) ? cents(randomInt(r, 40, 180)) : 0),
    },
    {
      key: 'payroll-semimonthly', account: 'checking', frequency: 'SEMI_MONTHLY', settle: 'payroll',
      payee: incomePayee(sideEmployer, [`${sideEmployer.payrollDescriptor} SEMI-MO`, `${sideEmployer.payrollDescriptor}`], 'INCOME_WAGES', true),
      nominal: semiMonthly(firstDay),
      cents: () => sidePay,
    },
    {
      key: 'rent', account: 'checking', frequency: 'MONTHLY', settle: 'ach', payee: payee(STREAM_MERCHANTS.rent),
      nominal: monthly(firstDay, 1), cents: (index) => -(index >= renewalAt ? Math.round(rent * 1.04) : rent),
    },
    {
      key: 'power', account: 'checking', frequency: 'MONTHLY', settle: 'ach', payee: payee(STREAM_MERCHANTS.power),
      nominal: monthly(firstDay, 18), cents: (_index, day, r) => -Math.round(power * (1 + seasonal(day) + (r() * 2 - 1) * 0.15) * 100),
    },
    {
      key: 'water', account: 'checking', frequency: 'MONTHLY', settle: 'ach', payee: payee(STREAM_MERCHANTS.water),
      nominal: monthly(firstDay, 24), cents: (_index, _day, r) => -varying(water, 0.3, r), skipChance: 0.05,
    },
    {
      key: 'insurance', account: 'checking', frequency: 'MONTHLY', settle: 'ach', payee: payee(STREAM_MERCHANTS.insurance),
      nominal: monthly(firstDay, 12), cents: () => -insurance,
    },
    {
      key: 'gym', account: 'checking', frequency: 'MONTHLY', settle: 'ach', payee: payee(STREAM_MERCHANTS.gym),
      nominal: monthly(firstDay, 3), cents: () => -2499, skipped: [randomInt(random, 6, 16)],
    },
    {
      key: 'loan', account: 'checking', frequency: 'MONTHLY', settle: 'ach',
      payee: bankPayee(institution, [`${institution.name.toUpperCase()} AUTO LOAN PMT`, 'AUTO LOAN PAYMENT'], 'LOAN_PAYMENTS_CAR_PAYMENT'),
      nominal: monthly(firstDay, 5), cents: () => -loanPayment,
      mirror: { account: 'loan', payee: bankPayee(institution, ['PAYMENT RECEIVED - THANK YOU'], 'TRANSFER_IN_ACCOUNT_TRANSFER') },
    },
    {
      key: 'internet', account: 'credit', frequency: 'MONTHLY', settle: 'card', payee: payee(STREAM_MERCHANTS.internet),
      nominal: monthly(firstDay, 9), cents: () => -7999,
    },
    {
      key: 'wireless', account: 'credit', frequency: 'MONTHLY', settle: 'card', payee: payee(STREAM_MERCHANTS.wireless),
      nominal: monthly(firstDay, 21), cents: (_index, _day, r) => -(7200 + randomInt(r, -60, 60)),
    },
    {
      key: 'netflix', account: 'credit', frequency: 'MONTHLY', settle: 'card', payee: payee(STREAM_MERCHANTS.netflix),
      nominal: monthly(firstDay, netflixDay), cents: (index) => (index >= priceChangeAt ? -1799 : -1549),
    },
    {
      key: 'spotify', account: 'credit', frequency: 'MONTHLY', settle: 'card', payee: payee(STREAM_MERCHANTS.spotify),
      nominal: monthly(firstDay, randomInt(random, 1, 28)), cents: () => -1199,
    },
    {
      key: 'icloud', account: 'credit', frequency: 'MONTHLY', settle: 'card', payee: payee(STREAM_MERCHANTS.icloud),
      nominal: monthly(firstDay, randomInt(random, 1, 28)), cents: () => -299,
    },
    {
      key: 'amazon-prime', account: 'credit', frequency: 'ANNUALLY', settle: 'card', payee: payee(STREAM_MERCHANTS.amazonPrime),
      nominal: (index) => addMonths(primeRenewal, 12 * index), cents: () => -13900,
    },
    {
      key: 'hulu', account: 'credit', frequency: 'MONTHLY', settle: 'card', payee: payee(STREAM_MERCHANTS.hulu),
      nominal: monthly(firstDay, randomInt(random, 1, 28)), cents: () => -799, endDay: asOf - randomInt(random, 120, 200),
    },
    {
      key: 'hellofresh', account: 'credit', frequency: 'WEEKLY', settle: 'card', payee: payee(STREAM_MERCHANTS.helloFresh),
      nominal: everyNDays(firstWeekday(asOf - randomInt(random, 210, 260), 3), 7), cents: () => -hellofreshBox, skipChance: 0.06,
    },
  ];
}

function scheduledDay(plan: StreamPlan, nominal: DayNumber, random: Random): DayNumber {
  if (plan.settle === 'payroll') return previousBusinessDay(nominal);
  if (plan.settle === 'card') return nominal;
  const due = nextBusinessDay(nominal);
  return chance(random, 0.2) ? nextBusinessDay(due + 1) : due;
}

export function plantStreams(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'streams');
  for (const plan of streamPlans(ledger, random)) plantStream(ledger, plan, randomStream(ledger.seed, `stream:${plan.key}`));
}

interface Occurrence {
  readonly day: DayNumber;
  readonly cents: number;
  readonly name: string;
}

function schedule(ledger: LedgerDraft, plan: StreamPlan, random: Random): { occurrences: Occurrence[]; nextDay: DayNumber; isActive: boolean } {
  const startDay = Math.max(ledger.firstDay, plan.startDay ?? ledger.firstDay);
  const occurrences: Occurrence[] = [];
  for (let index = 0; ; index += 1) {
    const nominal = plan.nominal(index);
    if (nominal < startDay) continue;
    const day = scheduledDay(plan, nominal, random);
    if (plan.endDay !== undefined && nominal > plan.endDay) return { occurrences, nextDay: day, isActive: false };
    if (day > ledger.lastDay) return { occurrences, nextDay: day, isActive: true };
    const skip = plan.skipped?.includes(index) === true || (occurrences.length >= 2 && day < ledger.asOf - 60 && chance(random, plan.skipChance ?? 0));
    if (!skip) occurrences.push({ day, cents: plan.cents(index, day, random), name: pickName(random, plan.payee) });
  }
}

function plantStream(ledger: LedgerDraft, plan: StreamPlan, random: Random): void {
  const { occurrences, nextDay, isActive } = schedule(ledger, plan, random);
  const stream = registerStream(ledger, {
    key: plan.key,
    account: plan.account,
    merchantName: plan.payee.merchantName,
    description: plan.payee.names[0] as string,
    frequency: plan.frequency,
    streamType: plan.settle === 'payroll' ? 'inflow' : 'outflow',
    nextDay,
    isActive,
  });
  for (const occurrence of occurrences) {
    const postLag = plan.settle === 'card' ? cardPostLag(random) : 0;
    addDraft(ledger, { account: plan.account, day: occurrence.day, cents: occurrence.cents, payee: plan.payee, name: occurrence.name, postLag, stream });
    if (plan.mirror !== undefined) {
      addDraft(ledger, { account: plan.mirror.account, day: occurrence.day, cents: -occurrence.cents, payee: plan.mirror.payee, name: plan.mirror.payee.names[0] as string });
    }
  }
}
