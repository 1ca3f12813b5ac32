import { ratesOf, scoreSeed, sumCounts } from './recurring-accuracy.js';

/**
 * The floor under recurring-stream detection: the benchmark's aims, over sandbox histories the
 * engine was not tuned on as well as ones it was. `npm run bench:recurring` prints the full picture.
 */
const CASES = [
  { seed: 1, asOf: '2026-11-20' },
  { seed: 7, asOf: '2026-11-20' },
  { seed: 42, asOf: '2026-11-20' },
  { seed: 101, asOf: '2026-03-15' },
  { seed: 202, asOf: '2025-08-31' },
  { seed: 303, asOf: '2027-01-10' },
];

describe('recurring-stream detection accuracy on sandbox histories', () => {
  const scores = CASES.map(({ seed, asOf }) => scoreSeed(seed, asOf));
  const rates = ratesOf(sumCounts(scores));
  const mismatches = scores.flatMap((score) => score.mismatches.map((mismatch) => `seed ${score.seed} ${mismatch.kind}: ${mismatch.label}: ${mismatch.detail}`));

  it('scores something real: every history plants active streams', () => {
    expect(scores.every((score) => score.counts.plantedActive >= 10)).toBe(true);
  });

  /** Fails with the mismatches listed, so a regression names the streams it broke. */
  const expectAtLeast = (name: string, rate: number, floor: number): void => {
    expect(() => {
      if (rate < floor) throw new Error(`${name} ${rate.toFixed(3)} is below ${floor}:\n${mismatches.join('\n')}`);
    }).not.toThrow();
  };

  it('keeps precision, recall and frequency accuracy at 95% or more', () => {
    expectAtLeast('precision', rates.precision, 0.95);
    expectAtLeast('recall', rates.recall, 0.95);
    expectAtLeast('frequency accuracy', rates.frequencyAccuracy, 0.95);
  });

  it('predicts the next payment within 3 days for 90% of the streams it finds', () => {
    expectAtLeast('next-date accuracy', rates.nextDateAccuracy, 0.9);
  });
});
