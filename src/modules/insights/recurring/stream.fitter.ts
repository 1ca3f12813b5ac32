import { amountsAgree, repeatedPriceClusters } from './amount-pattern.js';
import { CADENCE_RULES, type CadenceRule, type CadenceSchedule } from './cadence.schedules.js';
import type { Occurrence } from './recurring-stream.types.js';

export type { Occurrence } from './recurring-stream.types.js';

export interface StreamFit {
  readonly rule: CadenceRule;
  readonly schedule: CadenceSchedule;
  /** Ascending by day, then id. */
  readonly members: readonly Occurrence[];
  readonly firstSlot: number;
  readonly lastSlot: number;
  readonly meanDeviation: number;
}

/** Share of the payee's transactions since the stream began that the stream must explain. */
const MIN_COVERAGE = 0.75;
/** Share of the slots between the first and last member that must be filled (skips are rare). */
const MIN_FILL = 0.75;
/**
 * A payee whose transactions land on the schedule's slots clearly more often than chance would
 * put them there (Cohen's kappa against the share of days within tolerance of a slot) is paid on
 * that schedule; any other payee also sees irregular spending (see `amountsAgree`).
 */
const DEDICATED_PAYEE_KAPPA = 0.75;
/** Amid irregular spending, three payments a week apart happen by chance too often to mean much. */
const MIN_MEMBERS_AMID_IRREGULAR = 4;
/** Payees paid for two things on one cadence (two subscriptions, salary and a stipend). */
const MAX_STREAMS_PER_GROUP = 3;
const SECONDARY_MIN_MEMBERS = 3;
/** Anchors are estimated on the recent past, so an old schedule change does not blur them. */
const ANCHOR_SAMPLE = 36;

/** The streams in one payee group's posted occurrences, sorted ascending by day then id. */
export function fitStreams(occurrences: readonly Occurrence[]): StreamFit[] {
  const fits: StreamFit[] = [];
  let pool = occurrences;
  while (fits.length < MAX_STREAMS_PER_GROUP) {
    const fit = bestFit(pool, fits.length === 0 ? 2 : SECONDARY_MIN_MEMBERS);
    if (fit === null) break;
    fits.push(fit);
    const used = new Set(fit.members.map((member) => member.id));
    pool = pool.filter((occurrence) => !used.has(occurrence.id));
  }
  if (fits.length > 0) return fits;
  // Mixed with other spending at the same payee, a subscription still repeats its exact price, and
  // that price keeps to the schedule (a coffee shop's $4.75 comes at random, on and off it).
  for (const cluster of repeatedPriceClusters(occurrences, MIN_MEMBERS_AMID_IRREGULAR)) {
    const fit = bestFit(cluster, MIN_MEMBERS_AMID_IRREGULAR, { requireDedicated: true });
    if (fit !== null) fits.push(fit);
  }
  return fits;
}

function bestFit(pool: readonly Occurrence[], minMembers: number, { requireDedicated = false } = {}): StreamFit | null {
  if (pool.length < minMembers) return null;
  let best: StreamFit | null = null;
  for (const rule of CADENCE_RULES) {
    if (!canHoldStream(rule, pool, minMembers)) continue;
    const schedule = rule.fitSchedule(pool.slice(-ANCHOR_SAMPLE).map((occurrence) => occurrence.day));
    const fit = fitRule(rule, schedule, pool, { minMembers, requireDedicated });
    if (fit !== null && (best === null || isBetter(fit, best))) best = fit;
  }
  return best;
}

/**
 * A cheap necessary condition, so that a busy payee (a coffee shop, groceries) is not fitted at
 * all: a stream has at most one member per slot, yet must be most of what the payee saw from two
 * slots before it began, so some stretch of the payee's history must be sparse enough for that.
 * Slots are taken as short as they get (a semi-monthly half of February), so nothing is missed.
 */
function canHoldStream(rule: CadenceRule, pool: readonly Occurrence[], minMembers: number): boolean {
  const shortestSlot = rule.periodDays * 0.85;
  const lookbackDays = rule.lookbackSlots * shortestSlot;
  const lastDay = (pool[pool.length - 1] as Occurrence).day;
  const fewest = pool.length > 2 ? Math.max(3, minMembers) : 2;
  let windowStart = pool.length - 1;
  for (let start = pool.length - fewest; start >= 0; start -= 1) {
    const firstDay = (pool[start] as Occurrence).day;
    while (windowStart > 0 && (pool[windowStart - 1] as Occurrence).day >= firstDay - lookbackDays) windowStart -= 1;
    if (windowStart > start) windowStart = start;
    const mostMembers = (lastDay - firstDay) / shortestSlot + 1;
    if (pool.length - windowStart <= mostMembers / MIN_COVERAGE) return true;
  }
  return false;
}

function isBetter(candidate: StreamFit, incumbent: StreamFit): boolean {
  if (candidate.members.length !== incumbent.members.length) return candidate.members.length > incumbent.members.length;
  return spreadOf(candidate) < spreadOf(incumbent) - 1e-9;
}

function spreadOf(fit: StreamFit): number {
  return fit.meanDeviation / fit.rule.toleranceDays + fit.rule.anchorFreedomPenalty;
}

interface Placed {
  readonly occurrence: Occurrence;
  readonly slot: number;
  readonly deviation: number;
}

function fitRule(
  rule: CadenceRule,
  schedule: CadenceSchedule,
  pool: readonly Occurrence[],
  { minMembers, requireDedicated }: { minMembers: number; requireDedicated: boolean },
): StreamFit | null {
  const bySlot = new Map<number, Placed>();
  for (const occurrence of pool) {
    const { slot, deviation } = schedule.place(occurrence.day);
    if (deviation > rule.toleranceDays) continue;
    const held = bySlot.get(slot);
    if (held === undefined || deviation < held.deviation) bySlot.set(slot, { occurrence, slot, deviation });
  }
  const placed = [...bySlot.values()].sort((a, b) => a.slot - b.slot);
  const chance = Math.min(1, (2 * rule.toleranceDays + 1) / rule.periodDays);
  const dedicated = chance >= 1 || (placed.length / pool.length - chance) / (1 - chance) >= DEDICATED_PAYEE_KAPPA;
  if (requireDedicated && !dedicated) return null;
  let end = placed.length;
  while (end > 0) {
    let start = end - 1;
    while (start > 0 && (placed[start] as Placed).slot - (placed[start - 1] as Placed).slot <= rule.maxSlotGap) start -= 1;
    const fit = validSegment(rule, schedule, pool, placed.slice(start, end), { minMembers, dedicated });
    if (fit !== null) return fit;
    end = start;
  }
  return null;
}

function validSegment(
  rule: CadenceRule,
  schedule: CadenceSchedule,
  pool: readonly Occurrence[],
  segment: readonly Placed[],
  { minMembers, dedicated }: { minMembers: number; dedicated: boolean },
): StreamFit | null {
  if (segment.length < Math.max(2, minMembers, dedicated ? 0 : MIN_MEMBERS_AMID_IRREGULAR)) return null;
  const first = segment[0] as Placed;
  const last = segment[segment.length - 1] as Placed;
  if (segment.length / (last.slot - first.slot + 1) < MIN_FILL) return null;
  const meanDeviation = segment.reduce((sum, placed) => sum + placed.deviation, 0) / segment.length;
  if (meanDeviation > rule.maxMeanDeviation) return null;
  const startDay = Math.min(first.occurrence.day, schedule.dayOfSlot(first.slot - rule.lookbackSlots) - rule.toleranceDays);
  const sinceStart = pool.length - lowerBound(pool, startDay);
  if (segment.length / sinceStart < MIN_COVERAGE) return null;
  const members = segment.map((placed) => placed.occurrence);
  if (!amountsAgree(members, { poolSize: pool.length, dedicated })) return null;
  return { rule, schedule, members, firstSlot: first.slot, lastSlot: last.slot, meanDeviation };
}

/** Index of the first occurrence on or after `day`. */
function lowerBound(sorted: readonly Occurrence[], day: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] as Occurrence).day < day) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function byDayThenId(a: Occurrence, b: Occurrence): number {
  if (a.day !== b.day) return a.day - b.day;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
