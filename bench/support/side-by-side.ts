import type { LoadFigures } from './raw-load.js';

/** One Ledgerline operation beside the reference measured next to it in the same run. */
export interface Comparison {
  readonly operation: string;
  readonly ledgerline: LoadFigures;
  readonly reference: string;
  readonly referenceFigures: LoadFigures;
  /** Ledgerline's throughput over the reference's must reach this. */
  readonly goalRatio: number;
  /** Ledgerline's p99 must stay under this, when set. */
  readonly goalP99Ms?: number;
}

/** Resident memory of the service while it was under load. */
export interface MemoryFigures {
  readonly peakRssMb: number;
  readonly highWaterMarkMb: number;
  readonly goalMb: number;
}

export function throughputRatio(comparison: Comparison): number {
  return comparison.referenceFigures.requestsPerSecond > 0 ? comparison.ledgerline.requestsPerSecond / comparison.referenceFigures.requestsPerSecond : 0;
}

export function goalMet(comparison: Comparison): boolean {
  return throughputRatio(comparison) >= comparison.goalRatio && (comparison.goalP99Ms === undefined || comparison.ledgerline.p99 < comparison.goalP99Ms);
}

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function describeFigures(figures: LoadFigures): string {
  return `${whole.format(figures.requestsPerSecond)}/s, p50 ${milliseconds(figures.p50)}, p99 ${milliseconds(figures.p99)}`;
}

function milliseconds(value: number): string {
  return `${value < 10 ? value.toFixed(1) : whole.format(value)} ms`;
}

function describeGoal(comparison: Comparison): string {
  const goal = `≥ ${comparison.goalRatio.toFixed(1)}×${comparison.goalP99Ms === undefined ? '' : `, p99 < ${comparison.goalP99Ms} ms`}`;
  return `${goal}: ${goalMet(comparison) ? 'met' : 'not met'}`;
}

/** The markdown table the bench prints: one row per comparison, then the service's memory. */
export function sideBySideTable(connections: number, comparisons: readonly Comparison[], memory: MemoryFigures): string[] {
  const rows = comparisons.map((comparison) => `| ${comparison.operation} | ${describeFigures(comparison.ledgerline)} | ${comparison.reference}: ${describeFigures(comparison.referenceFigures)} | ${throughputRatio(comparison).toFixed(2)}× | ${describeGoal(comparison)} |`);
  const memoryMet = memory.peakRssMb <= memory.goalMb ? 'met' : 'not met';
  return [
    `| Operation (${connections} clients) | Ledgerline | Reference in the same run | Ratio | Goal |`,
    '|---|---|---|---|---|',
    ...rows,
    `| Ledgerline RSS under load | peak VmRSS ${whole.format(memory.peakRssMb)} MB (VmHWM ${whole.format(memory.highWaterMarkMb)} MB, seeding included) | | | ≤ ${memory.goalMb} MB: ${memoryMet} |`,
  ];
}
