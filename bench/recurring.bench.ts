import { performance } from 'node:perf_hooks';
import { generateSandboxHistory } from '../src/modules/link/sandbox-bank/index.js';
import {
  EMPTY_RECURRING_INDEX,
  addTransactions,
  detectRecurringStreams,
  listRecurringStreams,
  type RecurringStream,
} from '../src/modules/insights/recurring/index.js';
import { DEFAULT_AS_OF, ratesOf, scoreSeed, scoreStreams, sumCounts, toRecurringTransaction } from './recurring-accuracy.js';

/**
 * Recurring-stream detection: accuracy against the sandbox's planted streams over 20 seeds, then
 * the time of a full run over one user's 100k transactions and of an incremental update.
 * Run with `npm run bench:recurring`.
 */
const SEEDS = Array.from({ length: 20 }, (_, index) => index + 1);
const LARGE_HISTORY = 100_000;
const TIMED_RUNS = 5;

function reportAccuracy(): void {
  const scores = SEEDS.map((seed) => scoreSeed(seed));
  for (const score of scores) {
    const rates = ratesOf(score.counts);
    console.log(
      `seed ${String(score.seed).padStart(2)}: precision ${percent(rates.precision)} recall ${percent(rates.recall)} ` +
        `frequency ${percent(rates.frequencyAccuracy)} next date ${percent(rates.nextDateAccuracy)}`,
    );
    for (const mismatch of score.mismatches) console.log(`    ${mismatch.kind}: ${mismatch.label}: ${mismatch.detail}`);
  }
  const total = sumCounts(scores);
  const rates = ratesOf(total);
  console.log(`\nAccuracy over ${SEEDS.length} seeds (asOf ${DEFAULT_AS_OF}):`);
  console.log(`  precision           ${percent(rates.precision)}  (${total.matchedDetected}/${total.detectedActive} detected active streams match a planted one)`);
  console.log(`  recall              ${percent(rates.recall)}  (${total.matchedPlanted}/${total.plantedActive} planted active streams found)`);
  console.log(`  frequency accuracy  ${percent(rates.frequencyAccuracy)}  (${total.rightFrequency}/${total.matchedPlanted})`);
  console.log(`  next date ±3 days   ${percent(rates.nextDateAccuracy)}  (${total.nextDateWithin3Days}/${total.matchedPlanted})`);
}

function reportSpeed(): void {
  const history = generateSandboxHistory({ seed: 1, asOf: DEFAULT_AS_OF, transactionCount: LARGE_HISTORY });
  const transactions = history.transactions.map(toRecurringTransaction);
  const options = { asOf: DEFAULT_AS_OF };
  detectRecurringStreams(transactions, options);
  const fullRuns: number[] = [];
  let streams: RecurringStream[] = [];
  for (let run = 0; run < TIMED_RUNS; run += 1) {
    const started = performance.now();
    streams = detectRecurringStreams(transactions, options);
    fullRuns.push(performance.now() - started);
  }
  const rates = ratesOf(scoreStreams(history.plantedStreams, streams).counts);
  const byDate = [...transactions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const latest = byDate.slice(-10);
  const index = addTransactions(EMPTY_RECURRING_INDEX, byDate.slice(0, -10));
  const incrementalRuns: number[] = [];
  for (let run = 0; run < TIMED_RUNS; run += 1) {
    const started = performance.now();
    listRecurringStreams(addTransactions(index, latest), options);
    incrementalRuns.push(performance.now() - started);
  }
  console.log(`\nSpeed, one user with ${transactions.length} transactions (sandbox seed 1), median of ${TIMED_RUNS} runs:`);
  console.log(`  full detection      ${median(fullRuns).toFixed(0)} ms  (runs ${fullRuns.map((ms) => ms.toFixed(0)).join(', ')} ms)`);
  console.log(
    `  on that history     ${streams.length} streams, precision ${percent(rates.precision)} recall ${percent(rates.recall)} ` +
      `frequency ${percent(rates.frequencyAccuracy)} next date ${percent(rates.nextDateAccuracy)}`,
  );
  console.log(`  add 10 transactions ${median(incrementalRuns).toFixed(1)} ms  (incremental index update and listing)`);
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1).padStart(5)}%`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

reportAccuracy();
reportSpeed();
