import type { ProviderTransaction } from '../src/modules/link/bank-link.port.js';
import { generateSandboxHistory, type PlantedStream } from '../src/modules/link/sandbox-bank/index.js';
import { detectRecurringStreams, normalisePayeeName } from '../src/modules/insights/recurring/index.js';
import type { RecurringStream, RecurringTransaction } from '../src/modules/insights/recurring/index.js';

/**
 * Scores recurring-stream detection against the streams the sandbox bank planted. Shared by the
 * benchmark (`npm run bench:recurring`) and the floor test.
 */

/** The posting date, as the transactions read model stores it; a card's posting lag is within tolerance. */
export function toRecurringTransaction(transaction: ProviderTransaction): RecurringTransaction {
  return {
    id: transaction.transactionId,
    accountId: transaction.accountId,
    amount: transaction.amount,
    date: transaction.date,
    name: transaction.name,
    merchantName: transaction.merchantName,
    counterparties: transaction.counterparties.map((party) => ({ name: party.name, type: party.type })),
    categorySystemKey: transaction.categorySystemKey,
    pending: transaction.pending,
  };
}

export interface AccuracyCounts {
  readonly detectedActive: number;
  readonly matchedDetected: number;
  readonly plantedActive: number;
  readonly matchedPlanted: number;
  readonly rightFrequency: number;
  readonly nextDateWithin3Days: number;
}

export interface AccuracyRates {
  readonly precision: number;
  readonly recall: number;
  readonly frequencyAccuracy: number;
  readonly nextDateAccuracy: number;
}

export interface StreamMismatch {
  readonly kind: 'missed' | 'spurious' | 'wrong-frequency' | 'next-date';
  readonly label: string;
  readonly detail: string;
}

export interface SeedScore {
  readonly seed: number;
  readonly counts: AccuracyCounts;
  readonly mismatches: readonly StreamMismatch[];
}

export const DEFAULT_AS_OF = '2026-11-20';

export function scoreSeed(seed: number, asOf = DEFAULT_AS_OF): SeedScore {
  const history = generateSandboxHistory({ seed, asOf });
  const detected = detectRecurringStreams(history.transactions.map(toRecurringTransaction), { asOf });
  return { seed, ...scoreStreams(history.plantedStreams, detected) };
}

/**
 * Only active streams on both sides count: a stream the sandbox ended must not show as active,
 * and a planted active stream detected but tombstoned is not found. A pair matches when the two
 * share most of each other's transactions, else when account, direction and payee agree.
 */
export function scoreStreams(
  planted: readonly PlantedStream[],
  detected: readonly RecurringStream[],
): { counts: AccuracyCounts; mismatches: StreamMismatch[] } {
  const activePlanted = planted.filter((stream) => stream.isActive);
  const activeDetected = detected.filter((stream) => stream.isActive);
  const pairs = matchStreams(activePlanted, activeDetected);
  const mismatches: StreamMismatch[] = [];
  let rightFrequency = 0;
  let nextDateWithin3Days = 0;
  for (const [plantedStream, detectedStream] of pairs) {
    const label = plantedLabel(plantedStream);
    if (plantedStream.frequency === detectedStream.frequency) rightFrequency += 1;
    else mismatches.push({ kind: 'wrong-frequency', label, detail: `${detectedStream.frequency} for ${plantedStream.frequency}` });
    const gap = detectedStream.predictedNextDate === null ? Number.POSITIVE_INFINITY : dayGap(detectedStream.predictedNextDate, plantedStream.nextDate);
    if (gap <= 3) nextDateWithin3Days += 1;
    else mismatches.push({ kind: 'next-date', label, detail: `predicted ${detectedStream.predictedNextDate} for ${plantedStream.nextDate}` });
  }
  const matchedPlanted = new Set(pairs.map(([plantedStream]) => plantedStream));
  const matchedDetected = new Set(pairs.map(([, detectedStream]) => detectedStream));
  for (const stream of activePlanted.filter((candidate) => !matchedPlanted.has(candidate))) {
    const partial = detected.find((candidate) => candidate.transactionIds.some((id) => stream.transactionIds.includes(id)));
    const seen = partial === undefined ? 'not detected' : `closest ${partial.frequency} ${partial.status} with ${partial.transactionIds.length} transactions`;
    mismatches.push({ kind: 'missed', label: plantedLabel(stream), detail: `${stream.transactionIds.length} planted transactions, ${seen}` });
  }
  for (const stream of activeDetected.filter((candidate) => !matchedDetected.has(candidate))) {
    mismatches.push({ kind: 'spurious', label: `${stream.description} (${stream.streamType})`, detail: `${stream.frequency} ${stream.status}, ${stream.transactionIds.length} transactions averaging ${stream.averageAmount}, ${stream.firstDate}..${stream.lastDate}` });
  }
  const counts = {
    detectedActive: activeDetected.length,
    matchedDetected: matchedDetected.size,
    plantedActive: activePlanted.length,
    matchedPlanted: matchedPlanted.size,
    rightFrequency,
    nextDateWithin3Days,
  };
  return { counts, mismatches };
}

function matchStreams(planted: readonly PlantedStream[], detected: readonly RecurringStream[]): [PlantedStream, RecurringStream][] {
  const pairs: [PlantedStream, RecurringStream][] = [];
  const taken = new Set<RecurringStream>();
  const unmatched: PlantedStream[] = [];
  for (const stream of planted) {
    const ids = new Set(stream.transactionIds);
    const byIds = detected.find((candidate) => {
      if (taken.has(candidate)) return false;
      const shared = candidate.transactionIds.filter((id) => ids.has(id)).length;
      return shared * 2 > ids.size && shared * 2 > candidate.transactionIds.length;
    });
    if (byIds === undefined) unmatched.push(stream);
    else {
      taken.add(byIds);
      pairs.push([stream, byIds]);
    }
  }
  for (const stream of unmatched) {
    const payee = normalisePayeeName(stream.merchantName ?? stream.description);
    const byPayee = detected.find(
      (candidate) =>
        !taken.has(candidate) &&
        candidate.accountId === stream.accountId &&
        candidate.streamType === stream.streamType &&
        normalisePayeeName(candidate.merchantName ?? candidate.description) === payee,
    );
    if (byPayee !== undefined) {
      taken.add(byPayee);
      pairs.push([stream, byPayee]);
    }
  }
  return pairs;
}

export function sumCounts(scores: readonly { counts: AccuracyCounts }[]): AccuracyCounts {
  const total = { detectedActive: 0, matchedDetected: 0, plantedActive: 0, matchedPlanted: 0, rightFrequency: 0, nextDateWithin3Days: 0 };
  for (const { counts } of scores) {
    for (const key of Object.keys(total) as (keyof AccuracyCounts)[]) total[key] += counts[key];
  }
  return total;
}

export function ratesOf(counts: AccuracyCounts): AccuracyRates {
  const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);
  return {
    precision: ratio(counts.matchedDetected, counts.detectedActive),
    recall: ratio(counts.matchedPlanted, counts.plantedActive),
    frequencyAccuracy: ratio(counts.rightFrequency, counts.matchedPlanted),
    nextDateAccuracy: ratio(counts.nextDateWithin3Days, counts.matchedPlanted),
  };
}

function plantedLabel(stream: PlantedStream): string {
  return `${stream.streamId} ${stream.merchantName ?? stream.description} (${stream.frequency} ${stream.streamType})`;
}

function dayGap(a: string, b: string): number {
  return Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000;
}
