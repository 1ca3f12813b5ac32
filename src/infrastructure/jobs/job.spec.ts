import { type AttemptReporting, observedAttempt } from './job.js';

/** Issue 21, item 5: a job says when it starts and how it ends, with its name, id, attempt, duration, outcome and correlation id. */
describe('observedAttempt', () => {
  const job = { name: 'bank-link-sync', jobId: 'sync-item-1', attempt: 2, input: { userId: 'u', trace: { correlationId: 'onboarding-9', causationId: 'e1' } } };

  function recorder() {
    const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    const ended: Array<[string, string, number]> = [];
    const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields: { ...fields }, message });
    const reporting: AttemptReporting = { log: { info: at('info'), warn: at('warn') }, observer: { attemptEnded: (name, outcome, seconds) => void ended.push([name, outcome, seconds]) } };
    return { lines, ended, reporting };
  }

  it('logs the start and the finish of a completed attempt', async () => {
    const { lines, ended, reporting } = recorder();
    await observedAttempt(reporting, job, async () => undefined);
    const fields = { job: 'bank-link-sync', jobId: 'sync-item-1', attempt: 2, correlationId: 'onboarding-9' };
    expect(lines).toEqual([
      { level: 'info', fields, message: 'job started' },
      { level: 'info', fields: { ...fields, durationMs: expect.any(Number), outcome: 'completed' }, message: 'job finished' },
    ]);
    expect(ended).toEqual([['bank-link-sync', 'completed', expect.any(Number)]]);
  });

  it('logs a failed attempt with its error and passes the error on', async () => {
    const { lines, ended, reporting } = recorder();
    const failure = new Error('provider unavailable');
    await expect(observedAttempt(reporting, { ...job, input: {} }, async () => Promise.reject(failure))).rejects.toBe(failure);
    expect(lines.map((line) => line.message)).toEqual(['job started', 'job failed']);
    expect(lines[1]).toEqual({ level: 'warn', fields: { job: 'bank-link-sync', jobId: 'sync-item-1', attempt: 2, correlationId: undefined, durationMs: expect.any(Number), outcome: 'failed', err: failure }, message: 'job failed' });
    expect(ended).toEqual([['bank-link-sync', 'failed', expect.any(Number)]]);
  });
});
