import { type Comparison, goalMet, sideBySideTable, throughputRatio } from './side-by-side.js';

const figures = (requestsPerSecond: number, p99: number) => ({ requestsPerSecond, p50: p99 / 3, p99, count: requestsPerSecond * 10 });

const patch: Comparison = { operation: '`PATCH`', ledgerline: figures(547, 103), reference: 'Emmett', referenceFigures: figures(2177, 30), goalRatio: 1, goalP99Ms: 50 };

describe('side-by-side table', () => {
  it('divides Ledgerline throughput by the reference throughput', () => {
    expect(throughputRatio(patch)).toBeCloseTo(547 / 2177, 5);
  });

  it('meets a goal only when the ratio and the p99 bound both hold', () => {
    expect(goalMet(patch)).toBe(false);
    expect(goalMet({ ...patch, ledgerline: figures(2500, 60) })).toBe(false);
    expect(goalMet({ ...patch, ledgerline: figures(2500, 40) })).toBe(true);
    expect(goalMet({ ...patch, goalP99Ms: undefined, ledgerline: figures(2177, 400) })).toBe(true);
  });

  it('prints one row per comparison with figures, ratio and goal, then the memory row', () => {
    const lines = sideBySideTable(32, [patch], { peakRssMb: 312.4, highWaterMarkMb: 350, goalMb: 300 });
    expect(lines[0]).toBe('| Operation (32 clients) | Ledgerline | Reference in the same run | Ratio | Goal |');
    expect(lines[2]).toBe('| `PATCH` | 547/s, p50 34 ms, p99 103 ms | Emmett: 2,177/s, p50 10 ms, p99 30 ms | 0.25× | ≥ 1.0×, p99 < 50 ms: not met |');
    expect(lines[3]).toBe('| Ledgerline RSS under load | peak VmRSS 312 MB (VmHWM 350 MB, seeding included) | | | ≤ 300 MB: not met |');
  });

  it('reports a reference that served nothing as ratio 0 rather than infinity', () => {
    expect(throughputRatio({ ...patch, referenceFigures: figures(0, 0) })).toBe(0);
  });
});
