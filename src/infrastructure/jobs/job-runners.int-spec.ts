import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../core/clock.js';
import { createLogger } from '../logging/logger.js';
import { BullMqJobRunner } from './bullmq-job-runner.js';
import { InProcessJobRunner } from './in-process-job-runner.js';
import type { JobDefinition, JobRunner } from './job.js';
import { type PrivateRedis, privateRedis } from './private-redis.test-support.js';

const log = createLogger('silent');

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

/** A daily job, to see its schedule reach Redis. */
const nightly: JobDefinition<Record<string, never>> = { name: 'nightly', schedule: { dailyAtUtc: '23:55', input: {} }, handle: async () => undefined };

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; outcome: 'resolved' | 'rejected' }> {
  const started = Date.now();
  const outcome = await work().then(
    () => 'resolved' as const,
    () => 'rejected' as const,
  );
  return { ms: Date.now() - started, outcome };
}

const runners: Array<[string, (definitions: JobDefinition<never>[]) => Promise<JobRunner>]> = [
  ['in-process', async (definitions) => new InProcessJobRunner(definitions, systemClock, () => undefined)],
  ['BullMQ', async (definitions) => BullMqJobRunner.start(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', definitions, { onError: () => undefined, log, prefix: `ledgerline-test-${randomUUID()}` })],
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

describe('the BullMQ job runner when Redis is away', () => {
  const prefix = 'ledgerline-outage';
  let redis: PrivateRedis;
  let runner: BullMqJobRunner | null = null;
  let seen: string[];

  function startRunner(): BullMqJobRunner {
    const recording = recordingJob();
    seen = recording.seen;
    runner = BullMqJobRunner.start(redis.url, [recording.definition, nightly] as JobDefinition<never>[], { onError: () => undefined, log, prefix });
    return runner;
  }

  async function scheduleInRedis(): Promise<boolean> {
    const queue = new Queue('ledgerline', { connection: { url: redis.url }, prefix });
    try {
      return (await queue.getJobScheduler('nightly')) !== undefined;
    } finally {
      await queue.close();
    }
  }

  beforeEach(async () => {
    redis = await privateRedis();
  });
  afterEach(async () => {
    await runner?.close();
    runner = null;
    await redis.stop();
  });

  it('starts at once without Redis, holds what is enqueued, and runs it and upserts the schedule when Redis starts', async () => {
    const started = Date.now();
    const jobs = startRunner();
    expect(Date.now() - started).toBeLessThan(200);

    const enqueued = await timed(() => jobs.enqueue('record', { value: 'while-down' }, { jobId: 'while-down' }));
    await jobs.enqueue('record', { value: 'while-down' }, { jobId: 'while-down' });
    expect(enqueued).toMatchObject({ outcome: 'resolved' });
    expect(enqueued.ms).toBeLessThan(100);
    const probe = await timed(() => jobs.counts());
    expect(probe).toMatchObject({ outcome: 'rejected' });
    expect(probe.ms).toBeLessThan(100);

    await redis.start();
    const redisUpAt = Date.now();
    await eventually(() => seen.includes('while-down'));
    const resumedMs = Date.now() - redisUpAt;
    await eventually(scheduleInRedis);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual(['while-down']);
    expect(await jobs.counts()).toMatchObject({ held: 0, completed: 1 });
    console.log(`Redis down at boot: enqueue took ${enqueued.ms} ms, counts() failed in ${probe.ms} ms, the held job ran ${resumedMs} ms after Redis started`);
  });

  it('keeps accepting jobs through a Redis crash and resumes the worker and the schedule when Redis returns', async () => {
    await redis.start();
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'before' }, { jobId: 'before' });
    await eventually(() => seen.includes('before'));
    expect(await scheduleInRedis()).toBe(true);

    await redis.stop();
    const enqueued = await timed(() => jobs.enqueue('record', { value: 'during' }, { jobId: 'during' }));
    expect(enqueued).toMatchObject({ outcome: 'resolved' });
    const probe = await timed(() => jobs.counts());
    expect(probe).toMatchObject({ outcome: 'rejected' });
    expect(probe.ms).toBeLessThan(1500);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(seen).toEqual(['before']);

    // The restarted server is empty: the held job and the schedule must come from this process.
    await redis.start();
    const redisUpAt = Date.now();
    await eventually(() => seen.includes('during'));
    const resumedMs = Date.now() - redisUpAt;
    await eventually(scheduleInRedis);
    expect(seen).toEqual(['before', 'during']);
    console.log(`Redis crashed at runtime: enqueue took ${enqueued.ms} ms, counts() failed in ${probe.ms} ms, the held job ran ${resumedMs} ms after Redis returned`);
  });

  it('answers within the command timeout when Redis holds the connection but stops answering', async () => {
    await redis.start();
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'before' }, { jobId: 'before' });
    await eventually(() => seen.includes('before'));

    redis.freeze();
    try {
      const probe = await timed(() => jobs.counts());
      const enqueued = await timed(() => jobs.enqueue('record', { value: 'frozen' }, { jobId: 'frozen' }));
      expect(probe).toMatchObject({ outcome: 'rejected' });
      expect(probe.ms).toBeLessThan(1500);
      expect(enqueued).toMatchObject({ outcome: 'resolved' });
      expect(enqueued.ms).toBeLessThan(1500);
      console.log(`frozen Redis: counts() failed in ${probe.ms} ms, enqueue held its job after ${enqueued.ms} ms`);
    } finally {
      redis.thaw();
    }
    await eventually(() => seen.includes('frozen'));
  });

  it('closes within seconds while Redis is down', async () => {
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'never' }, { jobId: 'never' });
    const closing = await timed(() => jobs.close());
    runner = null;
    expect(closing).toMatchObject({ outcome: 'resolved' });
    expect(closing.ms).toBeLessThan(6000);
  });
});
