import { recurringRefreshJobId } from './recurring-refresh.job.js';

describe('the recurring refresh job id', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, 0) + ms);

  it('is one job per user per window, run after the window ends', () => {
    const first = recurringRefreshJobId('u1', at(0), 5000);
    const later = recurringRefreshJobId('u1', at(4999), 5000);
    expect(later.jobId).toBe(first.jobId);
    expect(first.delayMs).toBeGreaterThanOrEqual(5000);
    expect(later.delayMs).toBeGreaterThanOrEqual(1);
    expect(at(4999).getTime() + later.delayMs).toBe(at(0).getTime() + first.delayMs);
  });

  it('starts a new window after one ends, and never shares one between users', () => {
    expect(recurringRefreshJobId('u1', at(5000), 5000).jobId).not.toBe(recurringRefreshJobId('u1', at(4999), 5000).jobId);
    expect(recurringRefreshJobId('u2', at(0), 5000).jobId).not.toBe(recurringRefreshJobId('u1', at(0), 5000).jobId);
    expect(recurringRefreshJobId('u1', at(0), 5000).jobId).not.toContain(':');
  });

  it('runs at once, one job per request, with no debounce', () => {
    expect(recurringRefreshJobId('u1', at(0), 0).delayMs).toBe(0);
  });
});
