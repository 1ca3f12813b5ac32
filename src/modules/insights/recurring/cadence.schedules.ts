import { anchoredDay, civilFromDay, clampedDayOfMonth, daysInMonth, monthIndexOf } from '../../../core/calendar-day.js';
import type { DetectedFrequency } from './recurring-stream.types.js';

/**
 * A cadence is a calendar of expected days ("slots"). Each transaction is placed on its nearest
 * slot; how far it lands from it is its deviation. Anchoring on the calendar rather than on the
 * previous transaction keeps a weekend shift from carrying into the next prediction.
 */
export interface SlotPlacement {
  readonly slot: number;
  readonly deviation: number;
}

export interface CadenceSchedule {
  readonly frequency: DetectedFrequency;
  place(day: number): SlotPlacement;
  dayOfSlot(slot: number): number;
}

export interface CadenceRule {
  readonly frequency: DetectedFrequency;
  /** Mean days between slots. */
  readonly periodDays: number;
  /** How far a transaction may land from its slot (weekend and holiday shifts). */
  readonly toleranceDays: number;
  /** Mean deviation above this is scattered spending, not a schedule. */
  readonly maxMeanDeviation: number;
  /**
   * Added to the normalised spread when cadences compete: a rule with more anchors to choose from
   * fits a short, jittered history better by chance alone.
   */
  readonly anchorFreedomPenalty: number;
  /** Consecutive members may be this many slots apart (2 = one skipped occurrence). */
  readonly maxSlotGap: number;
  /**
   * Slots before a stream's first member in which the payee's other activity still counts against
   * it: a regular-looking run that starts amid irregular spending is chance, not a schedule.
   */
  readonly lookbackSlots: number;
  /** Occurrences on the cadence from which the stream is MATURE. */
  readonly matureAt: number;
  /** Days past the next expected date before the stream is TOMBSTONED. */
  readonly graceDays: number;
  /** The schedule of this cadence that fits these days (ascending) best. */
  fitSchedule(days: readonly number[]): CadenceSchedule;
}

const WEEKLY = periodicRule('WEEKLY', 7, { toleranceDays: 2, maxMeanDeviation: 0.8, graceDays: 5 });
const BIWEEKLY = periodicRule('BIWEEKLY', 14, { toleranceDays: 3, maxMeanDeviation: 1.2, graceDays: 7 });

export const CADENCE_RULES: readonly CadenceRule[] = [
  WEEKLY,
  BIWEEKLY,
  {
    frequency: 'SEMI_MONTHLY', periodDays: 365.25 / 24, toleranceDays: 3, maxMeanDeviation: 1.2, anchorFreedomPenalty: 0.15, maxSlotGap: 2,
    lookbackSlots: 2, matureAt: 3, graceDays: 7,
    fitSchedule(days) {
      return fitSemiMonthly(days, this.toleranceDays);
    },
  },
  {
    frequency: 'MONTHLY', periodDays: 365.25 / 12, toleranceDays: 4, maxMeanDeviation: 1.6, anchorFreedomPenalty: 0, maxSlotGap: 2,
    lookbackSlots: 2, matureAt: 3, graceDays: 14,
    fitSchedule(days) {
      return fitMonthly(days, this.toleranceDays);
    },
  },
  {
    frequency: 'ANNUALLY', periodDays: 365.25, toleranceDays: 4, maxMeanDeviation: 2, anchorFreedomPenalty: 0, maxSlotGap: 1,
    lookbackSlots: 0, matureAt: 2, graceDays: 30,
    fitSchedule(days) {
      return fitAnnual(days, this.toleranceDays);
    },
  },
];

function periodicSchedule(frequency: DetectedFrequency, period: number, phase: number): CadenceSchedule {
  return {
    frequency,
    place(day) {
      const slot = Math.round((day - phase) / period);
      return { slot, deviation: Math.abs(day - (phase + slot * period)) };
    },
    dayOfSlot: (slot) => phase + slot * period,
  };
}

function monthlySchedule(anchor: number): CadenceSchedule {
  return {
    frequency: 'MONTHLY',
    place(day) {
      const month = monthIndexOf(civilFromDay(day));
      return nearestSlot(day, [month - 1, month, month + 1], (slot) => anchoredDay(slot, anchor));
    },
    dayOfSlot: (slot) => anchoredDay(slot, anchor),
  };
}

/** Two anchors a month; 31 stands for the month's last day ("the 15th and the last"). */
function semiMonthlySchedule(first: number, second: number): CadenceSchedule {
  const dayOfSlot = (slot: number): number => anchoredDay(Math.floor(slot / 2), slot % 2 === 0 ? first : second);
  return {
    frequency: 'SEMI_MONTHLY',
    place(day) {
      const base = monthIndexOf(civilFromDay(day)) * 2;
      return nearestSlot(day, [base - 1, base, base + 1, base + 2], dayOfSlot);
    },
    dayOfSlot,
  };
}

function annualSchedule(month: number, anchor: number): CadenceSchedule {
  const dayOfSlot = (year: number): number => clampedDayOfMonth(year, month, anchor);
  return {
    frequency: 'ANNUALLY',
    place(day) {
      const year = civilFromDay(day).year;
      return nearestSlot(day, [year - 1, year, year + 1], dayOfSlot);
    },
    dayOfSlot,
  };
}

function periodicRule(
  frequency: DetectedFrequency,
  period: number,
  limits: { toleranceDays: number; maxMeanDeviation: number; graceDays: number },
): CadenceRule {
  const phases = Array.from({ length: period }, (_, phase) => phase);
  return {
    frequency, periodDays: period, ...limits, anchorFreedomPenalty: 0, maxSlotGap: 2, lookbackSlots: 2, matureAt: 3,
    fitSchedule(days) {
      const deviation = (phase: number, position: number): number => {
        const offset = ((((days[position] as number) - phase) % period) + period) % period;
        return Math.min(offset, period - offset);
      };
      const phase = bestCandidate(phases, days, limits.toleranceDays, deviation);
      return periodicSchedule(frequency, period, phase);
    },
  };
}

/** Deviations of each day from each day-of-month anchor 1..31, shared by the monthly fits. */
function monthlyDeviationTable(days: readonly number[]): number[][] {
  const positions = days.map((day) => {
    const { year, month, day: dayOfMonth } = civilFromDay(day);
    const previous = month === 1 ? daysInMonth(year - 1, 12) : daysInMonth(year, month - 1);
    const next = month === 12 ? 31 : daysInMonth(year, month + 1);
    return { dayOfMonth, length: daysInMonth(year, month), previous, next };
  });
  return Array.from({ length: 31 }, (_, offset) =>
    positions.map(({ dayOfMonth, length, previous, next }) => {
      const anchor = offset + 1;
      const here = Math.abs(dayOfMonth - Math.min(anchor, length));
      const before = dayOfMonth + previous - Math.min(anchor, previous);
      const after = length - dayOfMonth + Math.min(anchor, next);
      return Math.min(here, before, after);
    }),
  );
}

const MONTHLY_ANCHORS = Array.from({ length: 31 }, (_, offset) => offset + 1);

function fitMonthly(days: readonly number[], tolerance: number): CadenceSchedule {
  const table = monthlyDeviationTable(days);
  const anchor = bestCandidate(MONTHLY_ANCHORS, days, tolerance, (candidate, position) => (table[candidate - 1] as number[])[position] as number);
  return monthlySchedule(anchor);
}

/** Paydays about half a month apart: the 1st and 15th, the 5th and 20th, the 15th and the last. */
const SEMI_MONTHLY_PAIRS: readonly (readonly [number, number])[] = MONTHLY_ANCHORS.filter((first) => first <= 16).flatMap((first) =>
  [...new Set([first + 13, first + 14, first + 15, first + 16, ...(first >= 13 ? [31] : [])].filter((second) => second <= 31))].map(
    (second) => [first, second] as const,
  ),
);

function fitSemiMonthly(days: readonly number[], tolerance: number): CadenceSchedule {
  const table = monthlyDeviationTable(days);
  const [first, second] = bestCandidate(SEMI_MONTHLY_PAIRS, days, tolerance, ([a, b], position) => {
    return Math.min((table[a - 1] as number[])[position] as number, (table[b - 1] as number[])[position] as number);
  });
  return semiMonthlySchedule(first, second);
}

/** Annual anchors come from the recent transactions themselves: any other day fits worse. */
function fitAnnual(days: readonly number[], tolerance: number): CadenceSchedule {
  const anchors = [...new Set(days.slice(-12).map((day) => {
    const { month, day: dayOfMonth } = civilFromDay(day);
    return month * 100 + dayOfMonth;
  }))];
  const schedules = anchors.map((anchor) => annualSchedule(Math.floor(anchor / 100), anchor % 100));
  return bestCandidate(schedules, days, tolerance, (schedule, position) => schedule.place(days[position] as number).deviation);
}

/**
 * The candidate with the least total deviation, each capped just past the tolerance so that a
 * stray transaction cannot drag the anchor (a robust median). Between equals, the one with fewer
 * days out of tolerance, then the one the latest day sits on, as it predicts the next payment best.
 */
function bestCandidate<T>(
  candidates: readonly T[],
  days: readonly number[],
  tolerance: number,
  deviation: (candidate: T, position: number) => number,
): T {
  const latest = days.length - 1;
  let best = candidates[0] as T;
  let bestScore: readonly number[] = [Number.POSITIVE_INFINITY];
  for (const candidate of candidates) {
    let cost = 0;
    let outliers = 0;
    for (let position = 0; position < days.length; position += 1) {
      const value = deviation(candidate, position);
      if (value > tolerance) outliers += 1;
      cost += Math.min(value, tolerance + 1);
    }
    const score = [cost, outliers, deviation(candidate, latest)];
    if (isLower(score, bestScore)) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function isLower(score: readonly number[], than: readonly number[]): boolean {
  for (let position = 0; position < score.length; position += 1) {
    const a = score[position] as number;
    const b = than[position] ?? Number.POSITIVE_INFINITY;
    if (a !== b) return a < b;
  }
  return false;
}

function nearestSlot(day: number, slots: readonly number[], dayOfSlot: (slot: number) => number): SlotPlacement {
  let best: SlotPlacement = { slot: slots[0] as number, deviation: Number.POSITIVE_INFINITY };
  for (const slot of slots) {
    const deviation = Math.abs(day - dayOfSlot(slot));
    if (deviation < best.deviation) best = { slot, deviation };
  }
  return best;
}
