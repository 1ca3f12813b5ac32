import { figuresOf, type LoadFigures, type LoadSamples } from './raw-load.js';

/** Puts one load on a target for `seconds` and reports every call's latency. */
export type LoadRun = (seconds: number) => Promise<LoadSamples>;

export interface AlternateOptions {
  /** Seconds of load on each target first, not measured (JIT, pools, caches); 0 for none. */
  readonly warmUpS: number;
  /** Measured seconds per target in all, split over the rounds. */
  readonly durationS: number;
  readonly rounds: number;
}

/**
 * Measures a reference and Ledgerline in turns (reference, Ledgerline, reference, …), so a change in
 * what else the machine is doing falls on both rather than on whichever ran second.
 */
export async function alternate(reference: LoadRun, ledgerline: LoadRun, options: AlternateOptions): Promise<{ reference: LoadFigures; ledgerline: LoadFigures }> {
  if (options.warmUpS > 0) {
    await reference(options.warmUpS);
    await ledgerline(options.warmUpS);
  }
  const slice = options.durationS / options.rounds;
  const referenceRuns: LoadSamples[] = [];
  const ledgerlineRuns: LoadSamples[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    referenceRuns.push(await reference(slice));
    ledgerlineRuns.push(await ledgerline(slice));
  }
  return { reference: figuresOf(referenceRuns), ledgerline: figuresOf(ledgerlineRuns) };
}
