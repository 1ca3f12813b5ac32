import { addMonths, civilFromDay, clampedDayOfMonth, nextBusinessDay, type DayNumber } from '../../../core/calendar-day.js';
import { randomInt, randomStream } from '../../../core/seeded-random.js';
import { bankPayee } from './sandbox-payees.js';
import { addDraft, dailyPostedTotals, registerStream, type LedgerDraft } from './sandbox-ledger.js';

/**
 * Money moving between the item's own accounts (savings transfers, card payments) and what
 * depends on balances (savings interest, the checking opening balance). Own-account movements
 * are not planted streams even when regular.
 */

function monthStarts(ledger: LedgerDraft): DayNumber[] {
  const { year, month } = civilFromDay(ledger.firstDay);
  const starts: DayNumber[] = [];
  for (let day = clampedDayOfMonth(year, month, 1); day <= ledger.lastDay; day = addMonths(day, 1)) starts.push(day);
  return starts;
}

export function addSavingsTransfers(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'savings-transfers');
  const { institution, masks } = ledger;
  const toSavings = bankPayee(institution, [`ONLINE TRANSFER TO SAVINGS XXXXXX${masks.savings}`], 'TRANSFER_OUT_SAVINGS');
  const fromChecking = bankPayee(institution, [`ONLINE TRANSFER FROM CHECKING XXXXXX${masks.checking}`], 'TRANSFER_IN_ACCOUNT_TRANSFER');
  const toChecking = bankPayee(institution, [`ONLINE TRANSFER TO CHECKING XXXXXX${masks.checking}`], 'TRANSFER_OUT_ACCOUNT_TRANSFER');
  const fromSavings = bankPayee(institution, [`ONLINE TRANSFER FROM SAVINGS XXXXXX${masks.savings}`], 'TRANSFER_IN_ACCOUNT_TRANSFER');
  const monthly = randomInt(random, 6, 16) * 5000;
  const move = (day: DayNumber, cents: number, out: typeof toSavings, into: typeof toSavings, from: 'checking' | 'savings', to: 'checking' | 'savings'): void => {
    addDraft(ledger, { account: from, day, cents: -cents, payee: out, name: out.names[0] as string });
    addDraft(ledger, { account: to, day, cents, payee: into, name: into.names[0] as string });
  };
  for (const start of monthStarts(ledger)) {
    const day = nextBusinessDay(start + 2);
    if (day >= ledger.firstDay && day <= ledger.lastDay) move(day, monthly, toSavings, fromChecking, 'checking', 'savings');
  }
  for (let i = 0; i < 2; i += 1) {
    const day = nextBusinessDay(ledger.firstDay + randomInt(random, 60, 600));
    move(day, randomInt(random, 4, 20) * 10000, toChecking, fromSavings, 'savings', 'checking');
  }
}

/** Interest credited on the last day of each month from the balance that day; a rate cut midway. */
export function addSavingsInterest(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'savings-interest');
  const payee = bankPayee(ledger.institution, ['INTEREST PAYMENT', 'INTEREST PAID'], 'INCOME_INTEREST_EARNED');
  const totals = dailyPostedTotals(ledger, 'savings');
  const cutAt = randomInt(random, 8, 14);
  const monthEnds = monthStarts(ledger).map((start) => addMonths(start, 1) - 1);
  const credited = monthEnds.filter((day) => day >= ledger.firstDay && day <= ledger.lastDay);
  const lastEnd = monthEnds[monthEnds.length - 1] as DayNumber;
  const stream = registerStream(ledger, {
    key: 'savings-interest', account: 'savings', merchantName: null, description: 'INTEREST PAYMENT', frequency: 'MONTHLY',
    streamType: 'inflow', nextDay: lastEnd > ledger.lastDay ? lastEnd : addMonths(lastEnd + 1, 1) - 1, isActive: true,
  });
  let balance = ledger.openingCents.savings;
  let day = ledger.firstDay;
  credited.forEach((monthEnd, index) => {
    for (; day <= monthEnd; day += 1) balance += totals[day - ledger.firstDay] as number;
    const apy = index >= cutAt ? 0.038 : 0.0425;
    const cents = Math.max(1, Math.round((balance * apy) / 12));
    balance += cents;
    addDraft(ledger, { account: 'savings', day: monthEnd, cents, payee, name: payee.names[index % 7 === 3 ? 1 : 0] as string, stream });
  });
}

interface Statement {
  readonly closeDay: DayNumber;
  readonly payDay: DayNumber;
}

/** Statements close on the 20th; the full statement balance is paid about three weeks later. */
function statements(ledger: LedgerDraft): Statement[] {
  return monthStarts(ledger)
    .map((start) => {
      const closeDay = start + 19;
      return { closeDay, payDay: nextBusinessDay(closeDay + 21) };
    })
    .filter((statement) => statement.closeDay >= ledger.firstDay && statement.payDay <= ledger.lastDay);
}

/** Card payment transactions (two per statement) paid on or before `through`. */
export function cardPaymentTransactionCount(ledger: LedgerDraft, through: DayNumber): number {
  return statements(ledger).filter((statement) => statement.payDay <= through).length * 2;
}

export function addCardPayments(ledger: LedgerDraft): void {
  const { institution, masks } = ledger;
  const fromChecking = bankPayee(institution, [`PAYMENT TO ${institution.name.toUpperCase()} CARD ENDING IN ${masks.credit}`], 'LOAN_PAYMENTS_CREDIT_CARD_PAYMENT');
  const received = bankPayee(institution, ['PAYMENT - THANK YOU', 'ONLINE PAYMENT - THANK YOU'], 'LOAN_PAYMENTS_CREDIT_CARD_PAYMENT');
  const totals = dailyPostedTotals(ledger, 'credit');
  let balance = ledger.openingCents.credit;
  let day = ledger.firstDay;
  statements(ledger).forEach((statement, index) => {
    for (; day <= statement.closeDay; day += 1) balance += totals[day - ledger.firstDay] as number;
    // A statement in credit still gets a small payment, so the count of transactions stays fixed.
    const owed = -balance > 0 ? -balance : 2500;
    addDraft(ledger, { account: 'checking', day: statement.payDay, cents: -owed, payee: fromChecking, name: fromChecking.names[0] as string });
    addDraft(ledger, { account: 'credit', day: statement.payDay, cents: owed, payee: received, name: received.names[index % 5 === 4 ? 1 : 0] as string });
    totals[statement.payDay - ledger.firstDay] += owed;
  });
}

/** An opening balance high enough that checking never ends a day below $250. */
export function checkingOpeningCents(ledger: LedgerDraft, baseCents: number): number {
  const totals = dailyPostedTotals(ledger, 'checking');
  let running = 0;
  let lowest = 0;
  for (const total of totals) {
    running += total;
    if (running < lowest) lowest = running;
  }
  return Math.max(baseCents, 25000 - lowest);
}
