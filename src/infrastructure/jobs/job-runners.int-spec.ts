import { randomUUID } from 'node:crypto';
import { systemClock } from '../../core/clock.js';
import { BullMqJobRunner } from './bullmq-job-runner.js';
import { InProcessJobRunner } from './in-process-job-runner.js';
import type { JobDefinition, JobRunner } from './job.js';

function recordingJob() {
  const seen: string[] = [];
  let failuresLeft = 1;
  const definition: JobDefinition<{ value: string; flaky?: boolean }> = {
    name: 'record',
    async handle(input) {
      if (input.flaky && failuresLeft-- > 0) throw new Error('transient failure');
      seen.push(input.value);
    },
  };
  return { definition, seen };
}

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const runners: Array<[string, (definitions: JobDefinition<never>[]) => Promise<JobRunner>]> = [
  ['in-process', async (definitions) => new InProcessJobRunner(definitions, systemClock, () => undefined)],
  ['BullMQ', (definitions) => BullMqJobRunner.start(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', definitions, () => undefined, `ledgerline-test-${randomUUID()}`)],
];

describe.each(runners)('%s job runner', (_kind, start) => {
  it('runs an enqueued job once per job id, and retries a failing one', async () => {
    const { definition, seen } = recordingJob();
    const runner = await start([definition as JobDefinition<never>]);
    try {
      await runner.enqueue('record', { value: 'a' }, { jobId: 'job-a' });
      await runner.enqueue('record', { value: 'a' }, { jobId: 'job-a' });
      await runner.enqueue('record', { value: 'b', flaky: true }, { jobId: 'job-b' });
      await eventually(() => seen.includes('a') && seen.includes('b'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seen.sort()).toEqual(['a', 'b']);
    } finally {
      await runner.close();
    }
  });
});
