import type { Occurrence } from './recurring-stream.types.js';

/** What a stream's amounts must look like: utilities vary and prices change, but not at random. */

/** A stream's amounts stay within this factor of their median. */
const AMOUNT_FACTOR = 2;
const MIN_SHARE_WITHIN_AMOUNT_FACTOR = 0.8;
/** Among irregular spending, a run must repeat its price: each amount this close to a neighbour's. */
const REPEAT_TOLERANCE = 0.05;
const MIN_SHARE_REPEATING = 0.8;
/** Two occurrences are a weak signal: they must agree closely and be all the payee saw. */
const PAIR_AMOUNT_RATIO = 1.05;
/** A price repeated more often than this chance allows (over all the payee's prices) is a product. */
const REPEATED_PRICE_CHANCE = 0.01;
const UNITS_PER_CENT = 100;

/**
 * Whether a regular run's amounts make it a stream. On a payee that is paid on the schedule
 * (`dedicated`), amounts need only stay within a factor of two of their median; on a payee that
 * also sees irregular spending, they must repeat as well: a subscription does, dinners that happen
 * to fall a fortnight apart do not.
 */
export function amountsAgree(members: readonly Occurrence[], pool: { poolSize: number; dedicated: boolean }): boolean {
  const magnitudes = members.map((member) => Math.abs(member.units)).sort((a, b) => a - b);
  if (members.length === 2) {
    const [low, high] = magnitudes as [number, number];
    return high <= low * PAIR_AMOUNT_RATIO && members.length === pool.poolSize;
  }
  const median = magnitudes[Math.floor(magnitudes.length / 2)] as number;
  const within = magnitudes.filter((value) => value * AMOUNT_FACTOR >= median && value <= median * AMOUNT_FACTOR);
  if (within.length < MIN_SHARE_WITHIN_AMOUNT_FACTOR * magnitudes.length) return false;
  return pool.dedicated || amountsRepeat(members);
}

function amountsRepeat(members: readonly Occurrence[]): boolean {
  const close = (a: Occurrence | undefined, b: Occurrence): boolean =>
    a !== undefined && Math.abs(Math.abs(a.units) - Math.abs(b.units)) <= REPEAT_TOLERANCE * Math.abs(b.units);
  const repeating = members.filter((member, position) => close(members[position - 1], member) || close(members[position + 1], member));
  return repeating.length >= MIN_SHARE_REPEATING * members.length;
}

/**
 * The payee's transactions of one exact price, for each price that recurs more often than the
 * payee's other prices near it make likely (a Poisson tail, corrected for trying every price).
 * A hundred thousand grocery bills repeat prices by chance; a $14.99 plan among them does not.
 */
export function repeatedPriceClusters(occurrences: readonly Occurrence[], minMembers: number): Occurrence[][] {
  const byPrice = new Map<number, Occurrence[]>();
  for (const occurrence of occurrences) {
    const cluster = byPrice.get(occurrence.units);
    if (cluster === undefined) byPrice.set(occurrence.units, [occurrence]);
    else cluster.push(occurrence);
  }
  const magnitudes = occurrences.map((occurrence) => Math.abs(occurrence.units)).sort((a, b) => a - b);
  return [...byPrice.entries()]
    .filter(([units, cluster]) => cluster.length >= minMembers && byPrice.size * chanceOfRepeats(Math.abs(units), cluster.length, magnitudes) < REPEATED_PRICE_CHANCE)
    .sort(([a], [b]) => a - b)
    .map(([, cluster]) => cluster);
}

/** How likely `count` transactions at exactly `price` are, given how dense prices are around it. */
function chanceOfRepeats(price: number, count: number, sortedMagnitudes: readonly number[]): number {
  const halfWidth = Math.max(10 * UNITS_PER_CENT, Math.round(price * 0.02));
  const inWindow = countBetween(sortedMagnitudes, price - halfWidth, price + halfWidth);
  const pricesInWindow = (2 * halfWidth) / UNITS_PER_CENT + 1;
  const perPrice = Math.max((inWindow - count) / (pricesInWindow - 1), 0.5 / pricesInWindow);
  return poissonTail(perPrice, count);
}

/** P(X >= k) for X ~ Poisson(mean), summed upwards so that tiny tails keep their precision. */
export function poissonTail(mean: number, k: number): number {
  let term = Math.exp(-mean + k * Math.log(mean) - logFactorial(k));
  let sum = 0;
  for (let i = k; term > sum * 1e-12 && i < k + 1000; i += 1) {
    sum += term;
    term *= mean / (i + 1);
  }
  return Math.min(1, sum);
}

function logFactorial(n: number): number {
  let sum = 0;
  for (let i = 2; i <= n; i += 1) sum += Math.log(i);
  return sum;
}

function countBetween(sorted: readonly number[], low: number, high: number): number {
  return firstAtLeast(sorted, high + 1) - firstAtLeast(sorted, low);
}

function firstAtLeast(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
