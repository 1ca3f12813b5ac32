import { jest } from '@jest/globals';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../core/clock.js';
import { createLogger } from '../logging/logger.js';
import { BullMqJobRunner } from './bullmq-job-runner.js';
import { InProcessJobRunner } from './in-process-job-runner.js';
import type { JobDefinition, JobQueue, JobRunner } from './job.js';
import { type PrivateRedis, privateRedis } from './private-redis.test-support.js';
import { REDIS_COMMAND_TIMEOUT_MS } from './redis-options.js';

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

/**
 * Settles `work` against a generous deadline: `hung` means it neither resolved nor rejected in
 * time. The ms are for printing; tests assert the outcome, never the figure (CI is noisy).
 */
async function timed<T>(work: () => Promise<T>, deadlineMs: number): Promise<{ ms: number; outcome: 'resolved' | 'rejected' | 'hung' }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    work().then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), deadlineMs))),
  ]);
  clearTimeout(timer);
  return { ms: Date.now() - started, outcome };
}

/** Answering within the command timeout is the contract; asserted with a margin (× 3 + 5 s) a loaded 2-core CI machine cannot miss. */
const COMMAND_BOUND_MS = REDIS_COMMAND_TIMEOUT_MS * 3 + 5000;

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

  it('runs a delayed job once, after its delay, whatever else was enqueued under its id meanwhile (debouncing)', async () => {
    const { definition, seen } = recordingJob();
    const runner = await start([definition as JobDefinition<never>]);
    try {
      const enqueuedAt = Date.now();
      await runner.enqueue('record', { value: 'first' }, { jobId: 'debounced', delayMs: 400 });
      await runner.enqueue('record', { value: 'second' }, { jobId: 'debounced', delayMs: 400 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(seen).toEqual([]);
      await eventually(() => seen.length > 0);
      expect(Date.now() - enqueuedAt).toBeGreaterThanOrEqual(390);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seen).toEqual(['first']);
    } finally {
      await runner.close();
    }
  });

  it('hands a running job the runner, so that it can queue others (a fan-out)', async () => {
    const { definition, seen } = recordingJob();
    const fanOut: JobDefinition<{ values: string[] }> = {
      name: 'fan-out',
      async handle({ values }, jobs?: JobQueue) {
        for (const value of values) await jobs?.enqueue('record', { value }, { jobId: `fanned-${value}` });
      },
    };
    const runner = await start([definition, fanOut] as JobDefinition<never>[]);
    try {
      await runner.enqueue('fan-out', { values: ['x', 'y'] }, { jobId: 'fan-out-1' });
      await eventually(() => seen.includes('x') && seen.includes('y'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seen.sort()).toEqual(['x', 'y']);
    } finally {
      await runner.close();
    }
  });
});

describe('the in-process job runner closing', () => {
  it('does not wait out a delayed job: close() resolves at once and the job never runs', async () => {
    const { definition, seen } = recordingJob();
    const runner = new InProcessJobRunner([definition as JobDefinition<never>], systemClock, () => undefined);
    await runner.enqueue('record', { value: 'later' }, { jobId: 'later', delayMs: 60_000 });
    expect((await timed(() => runner.close(), 5000)).outcome).toBe('resolved');
    expect(seen).toEqual([]);
  });
});

describe('the in-process job runner on an interval', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs an every-N-minutes job once per interval, on multiples of the interval, with its input', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-23T10:07:30.000Z') });
    const runs: Array<{ at: string; input: unknown }> = [];
    const every15: JobDefinition<{ scope: string }> = {
      name: 'every-15',
      schedule: { everyMinutes: 15, input: { scope: 'all' } },
      async handle(input) {
        runs.push({ at: new Date().toISOString(), input });
      },
    };
    const runner = new InProcessJobRunner([every15 as JobDefinition<never>], systemClock, () => undefined);
    try {
      await jest.advanceTimersByTimeAsync(7 * 60_000);
      expect(runs).toEqual([]);
      await jest.advanceTimersByTimeAsync(30_000 + 45 * 60_000);
      expect(runs).toEqual(
        ['10:15', '10:30', '10:45', '11:00'].map((time) => ({ at: `2026-11-23T${time}:00.000Z`, input: { scope: 'all' } })),
      );
    } finally {
      await runner.close();
    }
  });

  it('does not start a run while the previous one of the same interval is still going', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-23T10:00:00.000Z') });
    let started = 0;
    let release: () => void = () => undefined;
    const slow: JobDefinition<Record<string, never>> = {
      name: 'slow',
      schedule: { everyMinutes: 1, input: {} },
      async handle() {
        started += 1;
        await new Promise<void>((resolve) => (release = resolve));
      },
    };
    const runner = new InProcessJobRunner([slow as JobDefinition<never>], systemClock, () => undefined);
    await jest.advanceTimersByTimeAsync(60_000);
    // The same interval asked again (as a restarted timer would) starts nothing.
    await runner.enqueue('slow', {}, { jobId: 'slow-2026-11-23T1001' });
    expect(started).toBe(1);
    release();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(started).toBe(2);
    release();
    await runner.close();
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
    // `start` is synchronous: that it returns a runner at all, with no Redis, is the "at once".
    const started = Date.now();
    const jobs = startRunner();
    const startMs = Date.now() - started;
    expect(jobs).toBeInstanceOf(BullMqJobRunner);

    // Redis is started only below: these settle while it is still down, so neither waits for it.
    const enqueued = await timed(() => jobs.enqueue('record', { value: 'while-down' }, { jobId: 'while-down' }), COMMAND_BOUND_MS);
    await jobs.enqueue('record', { value: 'while-down' }, { jobId: 'while-down' });
    expect(enqueued).toMatchObject({ outcome: 'resolved' });
    const probe = await timed(() => jobs.counts(), COMMAND_BOUND_MS);
    expect(probe).toMatchObject({ outcome: 'rejected' });

    await redis.start();
    const redisUpAt = Date.now();
    await eventually(() => seen.includes('while-down'));
    const resumedMs = Date.now() - redisUpAt;
    await eventually(scheduleInRedis);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual(['while-down']);
    expect(await jobs.counts()).toMatchObject({ held: 0, completed: 1 });
    console.info(`Redis down at boot: start took ${startMs} ms, enqueue ${enqueued.ms} ms, counts() failed in ${probe.ms} ms, the held job ran ${resumedMs} ms after Redis started`);
  });

  it('keeps accepting jobs through a Redis crash and resumes the worker and the schedule when Redis returns', async () => {
    await redis.start();
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'before' }, { jobId: 'before' });
    await eventually(() => seen.includes('before'));
    expect(await scheduleInRedis()).toBe(true);

    await redis.stop();
    // Redis is brought back only below: these settle (enqueue holds its job, counts() rejects) while it is down.
    const enqueued = await timed(() => jobs.enqueue('record', { value: 'during' }, { jobId: 'during' }), COMMAND_BOUND_MS);
    expect(enqueued).toMatchObject({ outcome: 'resolved' });
    const probe = await timed(() => jobs.counts(), COMMAND_BOUND_MS);
    expect(probe).toMatchObject({ outcome: 'rejected' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(seen).toEqual(['before']);

    // The restarted server is empty: the held job and the schedule must come from this process.
    await redis.start();
    const redisUpAt = Date.now();
    await eventually(() => seen.includes('during'));
    const resumedMs = Date.now() - redisUpAt;
    await eventually(scheduleInRedis);
    expect(seen).toEqual(['before', 'during']);
    console.info(`Redis crashed at runtime: enqueue took ${enqueued.ms} ms, counts() failed in ${probe.ms} ms, the held job ran ${resumedMs} ms after Redis returned`);
  });

  it('answers within the command timeout when Redis holds the connection but stops answering', async () => {
    await redis.start();
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'before' }, { jobId: 'before' });
    await eventually(() => seen.includes('before'));

    redis.freeze();
    try {
      // Both settle while Redis is still frozen (it thaws only in `finally`), within a generous
      // multiple of the command timeout: neither waits on a server that never answers.
      const probe = await timed(() => jobs.counts(), COMMAND_BOUND_MS);
      const enqueued = await timed(() => jobs.enqueue('record', { value: 'frozen' }, { jobId: 'frozen' }), COMMAND_BOUND_MS);
      console.info(`frozen Redis: counts() failed in ${probe.ms} ms, enqueue held its job after ${enqueued.ms} ms (command timeout ${REDIS_COMMAND_TIMEOUT_MS} ms)`);
      expect(probe).toMatchObject({ outcome: 'rejected' });
      expect(enqueued).toMatchObject({ outcome: 'resolved' });
    } finally {
      redis.thaw();
    }
    await eventually(() => seen.includes('frozen'));
  });

  it('keeps an interval schedule through a Redis crash, runs it at once as BullMQ does, and removes it when it is turned off', async () => {
    await redis.start();
    const runs: string[] = [];
    const hourly = (schedule: JobDefinition['schedule']): JobDefinition<Record<string, never>> => ({
      name: 'hourly-sync',
      schedule: schedule as JobDefinition<Record<string, never>>['schedule'],
      async handle() {
        runs.push(new Date().toISOString());
      },
    });
    const schedulerOf = async (name: string) => {
      const queue = new Queue('ledgerline', { connection: { url: redis.url }, prefix });
      try {
        return await queue.getJobScheduler(name);
      } finally {
        await queue.close();
      }
    };
    runner = BullMqJobRunner.start(redis.url, [hourly({ everyMinutes: 60, input: {} })] as JobDefinition<never>[], { onError: () => undefined, log, prefix });
    await eventually(async () => (await schedulerOf('hourly-sync'))?.every === 3_600_000);
    await eventually(() => runs.length === 1);

    await redis.stop();
    await redis.start();
    await eventually(async () => (await schedulerOf('hourly-sync'))?.every === 3_600_000);
    console.log(`interval schedule: ${runs.length} run(s) after the first upsert and the restart (BullMQ runs an every-scheduler at once when it is created)`);

    // The next release has the interval at 0: the definition has no schedule, and Redis must forget it.
    await runner.close();
    runner = BullMqJobRunner.start(redis.url, [hourly(undefined)] as JobDefinition<never>[], { onError: () => undefined, log, prefix });
    await eventually(async () => (await schedulerOf('hourly-sync')) === undefined);
  });

  it('closes within seconds while Redis is down', async () => {
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'never' }, { jobId: 'never' });
    // close() gives up waiting on Redis after 5 s (CLOSE_WAIT_MS): it must resolve, not hang. The
    // deadline keeps that bound with a margin (× 3 + 5 s) a loaded 2-core CI machine cannot miss.
    const closing = await timed(() => jobs.close(), 5000 * 3 + 5000);
    runner = null;
    console.info(`closing with Redis down took ${closing.ms} ms (gives up waiting after 5000 ms)`);
    expect(closing).toMatchObject({ outcome: 'resolved' });
  });
});
