import { etaSeconds, eventsPerSecond, formatDuration, formatProgressBar, formatProgressLine, ProgressReporter, type RebuildProgress } from './rebuild-progress.js';

const at = (overrides: Partial<RebuildProgress> = {}): RebuildProgress => ({
  projection: 'transactions',
  done: 412_000,
  total: 1_000_000,
  doneAtStart: 0,
  elapsedMs: 7_067,
  phase: 'replaying',
  ...overrides,
});

describe('rebuild progress', () => {
  it('says how far, how fast and how long is left, on a plain line', () => {
    expect(formatProgressLine(at())).toBe('rebuild transactions: 412,000/1,000,000 events (41%), 58,299 ev/s, ETA 11 s');
  });

  it('counts only this run towards the speed of a resumed rebuild', () => {
    const resumed = at({ doneAtStart: 400_000, done: 412_000, elapsedMs: 1_000 });
    expect(eventsPerSecond(resumed)).toBe(12_000);
    expect(etaSeconds(resumed)).toBeCloseTo(49, 0);
  });

  it('has no share or ETA when the store cannot count its events, and none before the first batch', () => {
    expect(formatProgressLine(at({ total: null }))).toBe('rebuild transactions: 412,000 events, 58,299 ev/s');
    expect(formatProgressLine(at({ done: 0, elapsedMs: 0 }))).toBe('rebuild transactions: 0/1,000,000 events (0%), 0 ev/s');
    expect(etaSeconds(at({ done: 0, elapsedMs: 0 }))).toBeNull();
  });

  it('says when it switches and when it is done', () => {
    expect(formatProgressLine(at({ phase: 'switching', done: 1_000_000 }))).toBe('rebuild transactions: 1,000,000/1,000,000 events (100%), 141,503 ev/s, switching');
    expect(formatProgressLine(at({ phase: 'done', done: 1_000_000, elapsedMs: 20_000 }))).toBe('rebuild transactions: 1,000,000/1,000,000 events (100%), done in 20 s, 50,000 ev/s');
  });

  it('draws a bar that fits the terminal', () => {
    expect(formatProgressBar(at(), 200)).toBe('rebuild transactions [########------------]  41% 412,000/1,000,000 58,299 ev/s, ETA 11 s');
    expect(formatProgressBar(at(), 40)).toHaveLength(39);
    expect(formatProgressBar(at({ total: 0, done: 0 }), 200)).toContain('[####################] 100%');
  });

  it('writes durations for people', () => {
    expect([formatDuration(0.2), formatDuration(59.5), formatDuration(125), formatDuration(7_500)]).toEqual(['1 s', '60 s', '2 min 5 s', '2 h 5 min']);
  });

  it('redraws in place on a terminal, at most every redrawMs, and ends the line when done', () => {
    const written: string[] = [];
    let now = 0;
    const reporter = new ProgressReporter({ isTTY: true, columns: 200, write: (text) => written.push(text) }, () => now, { redrawMs: 100 });
    reporter.update(at({ done: 1 }));
    now = 50;
    reporter.update(at({ done: 2 }));
    now = 150;
    reporter.update(at({ done: 3 }));
    reporter.finish(at({ phase: 'done', done: 4 }));
    expect(written).toHaveLength(4);
    expect(written.slice(0, 3).every((text) => text.startsWith('\r\u001b[K'))).toBe(true);
    expect(written[3]).toBe('\n');
  });

  it('writes whole lines a few seconds apart otherwise', () => {
    const written: string[] = [];
    let now = 0;
    const reporter = new ProgressReporter({ write: (text) => written.push(text) }, () => now, { lineEveryMs: 3_000 });
    for (now = 0; now < 10_000; now += 500) reporter.update(at());
    reporter.finish(at({ phase: 'done' }));
    expect(written).toHaveLength(5);
    expect(written.every((text) => text.endsWith('\n') && !text.includes('\r'))).toBe(true);
  });
});
