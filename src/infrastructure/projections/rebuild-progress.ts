/** How far a rebuild has got, and how it is shown: a redrawn bar on a terminal, a plain line every few seconds otherwise. */

export interface RebuildProgress {
  readonly projection: string;
  /** Events of `$all` the replay has moved past (all types). */
  readonly done: number;
  /** Events of `$all` up to the head; null where the store cannot tell. */
  readonly total: number | null;
  /** `done` when this run started (a resumed rebuild's earlier work does not count towards its speed). */
  readonly doneAtStart: number;
  readonly elapsedMs: number;
  readonly phase: 'replaying' | 'switching' | 'done';
  /** What is shown for other long runs (a statement import): its title and what it counts; a rebuild's by default. */
  readonly shown?: { readonly title: string; readonly unit: string; readonly rateUnit: string };
}

const titleOf = (progress: RebuildProgress) => progress.shown?.title ?? `rebuild ${progress.projection}`;
const unitOf = (progress: RebuildProgress) => progress.shown?.unit ?? 'events';
const rateOf = (progress: RebuildProgress) => `${count(eventsPerSecond(progress))} ${progress.shown?.rateUnit ?? 'ev/s'}`;

const count = (n: number) => Math.round(n).toLocaleString('en');

export function eventsPerSecond(progress: RebuildProgress): number {
  return progress.elapsedMs > 0 ? ((progress.done - progress.doneAtStart) * 1000) / progress.elapsedMs : 0;
}

/** Seconds left at the speed so far; null when unknown. */
export function etaSeconds(progress: RebuildProgress): number | null {
  const rate = eventsPerSecond(progress);
  if (progress.total === null || rate <= 0) return null;
  return Math.max(0, (progress.total - progress.done) / rate);
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function percent(progress: RebuildProgress): number | null {
  if (progress.total === null) return null;
  return progress.total === 0 ? 100 : Math.min(100, Math.floor((progress.done * 100) / progress.total));
}

function tail(progress: RebuildProgress): string {
  if (progress.phase === 'done') return `done in ${formatDuration(progress.elapsedMs / 1000)}, ${rateOf(progress)}`;
  const eta = etaSeconds(progress);
  const rate = rateOf(progress);
  if (progress.phase === 'switching') return `${rate}, switching`;
  return eta === null ? rate : `${rate}, ETA ${formatDuration(eta)}`;
}

/** `rebuild transactions: 412,000/1,000,000 events (41%), 58,300 ev/s, ETA 10 s` */
export function formatProgressLine(progress: RebuildProgress): string {
  const share = percent(progress);
  const of = progress.total === null ? count(progress.done) : `${count(progress.done)}/${count(progress.total)}`;
  return `${titleOf(progress)}: ${of} ${unitOf(progress)}${share === null ? '' : ` (${share}%)`}, ${tail(progress)}`;
}

/** `rebuild transactions [########------------]  41% 412,000/1,000,000 58,300 ev/s, ETA 10 s`, cut to `columns`. */
export function formatProgressBar(progress: RebuildProgress, columns: number): string {
  const share = percent(progress) ?? 0;
  const width = 20;
  const filled = Math.round((share * width) / 100);
  const of = progress.total === null ? count(progress.done) : `${count(progress.done)}/${count(progress.total)}`;
  const line = `${titleOf(progress)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(share).padStart(3)}% ${of} ${tail(progress)}`;
  return line.slice(0, Math.max(10, columns - 1));
}

export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

/**
 * Shows progress on `stream` (stderr): on a terminal the bar is redrawn in place at most every
 * `redrawMs`; otherwise a line every `lineEveryMs`. `finish` always prints the last state on a line of its own.
 */
export class ProgressReporter {
  private lastShownAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number = () => Date.now(),
    private readonly options: { redrawMs?: number; lineEveryMs?: number } = {},
  ) {}

  update(progress: RebuildProgress): void {
    const at = this.now();
    const every = this.stream.isTTY ? (this.options.redrawMs ?? 100) : (this.options.lineEveryMs ?? 3000);
    if (at - this.lastShownAt < every) return;
    this.lastShownAt = at;
    this.show(progress);
  }

  finish(progress: RebuildProgress): void {
    this.show(progress);
    if (this.stream.isTTY) this.stream.write('\n');
    this.lastShownAt = Number.NEGATIVE_INFINITY;
  }

  private show(progress: RebuildProgress): void {
    if (this.stream.isTTY) {
      this.stream.write(`\r\u001b[K${formatProgressBar(progress, this.stream.columns ?? 80)}`);
    } else {
      this.stream.write(`${formatProgressLine(progress)}\n`);
    }
  }
}
