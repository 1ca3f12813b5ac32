import { formatIsoDate, parseIsoDate } from '../../../core/calendar-day.js';
import { averageUnits, fromUnits } from './decimal-units.js';
import type { DetectedStream, PayeeGroup } from './recurring-index.state.js';
import type { StreamFit } from './stream.fitter.js';
import type { RecurringStatus, RecurringStream, RecurringTransaction } from './recurring-stream.types.js';

export interface PresentationContext {
  readonly transactionOf: (id: string) => RecurringTransaction;
  /** Days of the payee group's pending transactions. */
  readonly pendingDays: readonly number[];
  readonly asOf: string;
}

/** A fitted stream as the API shows it on `asOf`: the only step that depends on today. */
export function presentStream(detected: DetectedStream, group: PayeeGroup, context: PresentationContext): RecurringStream {
  const { fit } = detected;
  const members = fit.members;
  const first = members[0];
  const last = members[members.length - 1];
  if (first === undefined || last === undefined) throw new Error(`Stream ${detected.id} has no transactions`);
  const transactions = members.map((member) => context.transactionOf(member.id));
  const nextDay = fit.schedule.dayOfSlot(nextExpectedSlot(fit, last.day, context.pendingDays));
  const isActive = parseIsoDate(context.asOf) <= nextDay + fit.rule.graceDays;
  const status: RecurringStatus = !isActive
    ? 'TOMBSTONED'
    : members.length >= fit.rule.matureAt
      ? 'MATURE'
      : 'EARLY_DETECTION';
  return {
    id: detected.id,
    accountId: group.accountId,
    streamType: group.streamType,
    frequency: fit.rule.frequency,
    status,
    isActive,
    averageAmount: fromUnits(averageUnits(members.map((member) => member.units))),
    lastAmount: fromUnits(last.units),
    firstDate: formatIsoDate(first.day),
    lastDate: formatIsoDate(last.day),
    predictedNextDate: isActive ? formatIsoDate(nextDay) : null,
    transactionIds: members.map((member) => member.id),
    merchantName: mostCommon(transactions.map((transaction) => transaction.merchantName)),
    description: (transactions[transactions.length - 1] as RecurringTransaction).name,
    category: mostCommon(transactions.map((transaction) => transaction.categorySystemKey)),
  };
}

/** A pending charge where the next one is due shows it has already come: expect the one after. */
function nextExpectedSlot(fit: StreamFit, lastDay: number, pendingDays: readonly number[]): number {
  let slot = fit.lastSlot + 1;
  for (const day of [...pendingDays].sort((a, b) => a - b)) {
    if (day <= lastDay) continue;
    const placement = fit.schedule.place(day);
    if (placement.slot === slot && placement.deviation <= fit.rule.toleranceDays) slot += 1;
  }
  return slot;
}

/** The most frequent non-null value; on a tie, the most recent one wins. */
function mostCommon(values: readonly (string | null)[]): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  let bestCount = 0;
  for (const value of values) {
    if (value === null) continue;
    const count = (counts.get(value) ?? 0) + 1;
    counts.set(value, count);
    if (count >= bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}
