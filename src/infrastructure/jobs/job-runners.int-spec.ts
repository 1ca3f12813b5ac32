import { jest } from '@jest/globals';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../core/clock.js';
import { createMigratedDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { DatabaseConnection } from '../database/database.js';
import { createLogger } from '../logging/logger.js';
import { BullMqJobRunner } from './bullmq-job-runner.js';
import { InProcessJobRunner } from './in-process-job-runner.js';
import type { JobDefinition, JobExecutor, JobQueue } from './job.js';
import { OutboxJobRunner } from './outbox-job-runner.js';
import { type PrivateRedis, privateRedis } from './private-redis.test-support.js';
import { REDIS_COMMAND_TIMEOUT_MS } from './redis-options.js';

const log = createLogger('silent');

function recordingJob() {
  const seen: string[] = [];
  let failuresLeft = 1;
  const definition: JobDefinition<{ value: string; flaky?: boolean; broken?: boolean }> = {
    name: 'record',
    async handle(input) {
      if (input.broken) throw new Error('this job cannot run');
      if (input.flaky && failuresLeft-- > 0) throw new Error('transient failure');
      seen.push(input.value);
    },
  };
  return { definition, seen };
}

/** A daily job, to see its schedule reach Redis. */
const nightly: JobDefinition<Record<string, never>> = { name: 'nightly', schedule: { dailyAtUtc: '23:55', input: {} }, handle: async () => undefined };

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
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

let database: TestDatabase;
let connection: DatabaseConnection;

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
});

afterAll(async () => {
  await connection.close();
  await database.drop();
});

afterEach(async () => {
  await connection.db.deleteFrom('job_outbox').execute();
});

/** The outbox over an executor, relaying and auditing quickly as a test needs. */
function outbox(executor: JobExecutor, definitions: readonly JobDefinition<never>[]): OutboxJobRunner {
  return OutboxJobRunner.start(connection, executor, definitions.map((definition) => definition.name), { log, relayIntervalMs: 50, auditIntervalMs: 200, auditAfterMs: 300 });
}

const outboxRows = async () => connection.db.selectFrom('job_outbox').selectAll().orderBy('job_id').execute();

const executors: Array<[string, (definitions: JobDefinition<never>[]) => JobExecutor]> = [
  ['in-process', (definitions) => new InProcessJobRunner(definitions, systemClock, () => undefined)],
  ['BullMQ', (definitions) => BullMqJobRunner.create(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', definitions, { onError: () => undefined, log, prefix: `ledgerline-test-${randomUUID()}` })],
];

describe.each(executors)('%s jobs through the outbox', (_kind, executor) => {
  it('run once per job id, a failing one retried; each leaves the outbox when it completes', async () => {
    const { definition, seen } = recordingJob();
    const definitions = [definition as JobDefinition<never>];
    const runner = outbox(executor(definitions), definitions);
    try {
      await runner.enqueue('record', { value: 'a' }, { jobId: 'job-a', cause: { requestId: 'req-1' } });
      await runner.enqueue('record', { value: 'a' }, { jobId: 'job-a' });
      await runner.enqueue('record', { value: 'b', flaky: true }, { jobId: 'job-b' });
      await eventually(() => seen.includes('a') && seen.includes('b'));
      await eventually(() => runner.settled());
      expect(seen.sort()).toEqual(['a', 'b']);
    } finally {
      await runner.close();
    }
  });

  it('keep a job whose retries are used up in the outbox, marked failed with its error', async () => {
    const { definition } = recordingJob();
    const definitions = [definition as JobDefinition<never>];
    const runner = outbox(executor(definitions), definitions);
    try {
      await runner.enqueue('record', { value: 'x', broken: true }, { jobId: 'job-broken' });
      await eventually(async () => (await outboxRows())[0]?.failed_at != null, 60_000);
      expect(await outboxRows()).toEqual([expect.objectContaining({ job_id: 'job-broken', last_error: 'this job cannot run' })]);
      expect(await runner.settled()).toBe(true);
    } finally {
      await runner.close();
    }
  }, 90_000);

  it('run a delayed job once, after its delay, whatever else was enqueued under its id meanwhile (debouncing)', async () => {
    const { definition, seen } = recordingJob();
    const definitions = [definition as JobDefinition<never>];
    const runner = outbox(executor(definitions), definitions);
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

  it('hand a running job the outbox, so that it can queue others (a fan-out)', async () => {
    const { definition, seen } = recordingJob();
    const fanOut: JobDefinition<{ values: string[] }> = {
      name: 'fan-out',
      async handle({ values }, jobs?: JobQueue) {
        for (const value of values) await jobs?.enqueue('record', { value }, { jobId: `fanned-${value}` });
      },
    };
    const definitions = [definition, fanOut] as JobDefinition<never>[];
    const runner = outbox(executor(definitions), definitions);
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

describe('in-process jobs', () => {
  it('outlive the process that had them: close() does not wait out a delayed job, and the next runner runs it', async () => {
    const first = recordingJob();
    const runner = outbox(new InProcessJobRunner([first.definition as JobDefinition<never>], systemClock, () => undefined), [first.definition as JobDefinition<never>]);
    await runner.enqueue('record', { value: 'later' }, { jobId: 'later', delayMs: 1_500 });
    await eventually(async () => (await outboxRows())[0]?.handed_at != null);
    expect((await timed(() => runner.close(), 5000)).outcome).toBe('resolved');
    expect(first.seen).toEqual([]);

    // The next process: the job its predecessor had taken comes back from the outbox, at its time.
    const second = recordingJob();
    const next = outbox(new InProcessJobRunner([second.definition as JobDefinition<never>], systemClock, () => undefined), [second.definition as JobDefinition<never>]);
    try {
      await eventually(() => second.seen.includes('later'));
      await eventually(() => next.settled());
    } finally {
      await next.close();
    }
  });
});

describe('the in-process job runner on an interval', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  const started = (runner: InProcessJobRunner) => runner.start({ enqueue: async () => undefined }, async () => undefined);

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
    started(runner);
    try {
      await jest.advanceTimersByTimeAsync(7 * 60_000);
      expect(runs).toEqual([]);
      await jest.advanceTimersByTimeAsync(30_000 + 45 * 60_000);
      expect(runs).toEqual(['10:15', '10:30', '10:45', '11:00'].map((time) => ({ at: `2026-11-23T${time}:00.000Z`, input: { scope: 'all' } })));
    } finally {
      await runner.close();
    }
  });

  it('does not start a run while the previous one of the same interval is still going', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-23T10:00:00.000Z') });
    let runs = 0;
    let release: () => void = () => undefined;
    const slow: JobDefinition<Record<string, never>> = {
      name: 'slow',
      schedule: { everyMinutes: 1, input: {} },
      async handle() {
        runs += 1;
        await new Promise<void>((resolve) => (release = resolve));
      },
    };
    const runner = new InProcessJobRunner([slow as JobDefinition<never>], systemClock, () => undefined);
    started(runner);
    await jest.advanceTimersByTimeAsync(60_000);
    // The same interval asked again (as a restarted timer would) starts nothing.
    await runner.take('slow', {}, { jobId: 'slow-2026-11-23T1001', delayMs: 0 });
    expect(runs).toBe(1);
    release();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(runs).toBe(2);
    release();
    await runner.close();
  });
});

describe('BullMQ jobs when Redis is away', () => {
  const prefix = 'ledgerline-outage';
  let redis: PrivateRedis;
  let runner: OutboxJobRunner | null = null;
  let seen: string[];

  function startRunner(): OutboxJobRunner {
    const recording = recordingJob();
    seen = recording.seen;
    const definitions = [recording.definition, nightly] as JobDefinition<never>[];
    runner = outbox(BullMqJobRunner.create(redis.url, definitions, { onError: () => undefined, log, prefix }), definitions);
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

  it('start at once without Redis, keep what is enqueued in the outbox, and run it and upsert the schedule when Redis starts', async () => {
    const started = Date.now();
    const jobs = startRunner();
    const startMs = Date.now() - started;

    // Redis is started only below: these settle while it is still down, so neither waits for it.
    const enqueued = await timed(() => jobs.enqueue('record', { value: 'while-down' }, { jobId: 'while-down' }), COMMAND_BOUND_MS);
    await jobs.enqueue('record', { value: 'while-down' }, { jobId: 'while-down' });
    expect(enqueued).toMatchObject({ outcome: 'resolved' });
    expect(await outboxRows()).toEqual([expect.objectContaining({ job_id: 'while-down', handed_at: null })]);
    const probe = await timed(() => jobs.counts(), COMMAND_BOUND_MS);
    expect(probe).toMatchObject({ outcome: 'rejected' });

    await redis.start();
    const redisUpAt = Date.now();
    await eventually(() => seen.includes('while-down'));
    const resumedMs = Date.now() - redisUpAt;
    await eventually(scheduleInRedis);
    await eventually(() => jobs.settled());
    expect(seen).toEqual(['while-down']);
    console.info(`Redis down at boot: start took ${startMs} ms, enqueue ${enqueued.ms} ms, counts() failed in ${probe.ms} ms, the job ran ${resumedMs} ms after Redis started`);
  });

  it('keep accepting jobs through a Redis crash, and hand again what the empty restarted Redis lost', async () => {
    await redis.start();
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'before' }, { jobId: 'before' });
    await eventually(() => seen.includes('before'));
    expect(await scheduleInRedis()).toBe(true);
    // Handed to Redis and not run yet when Redis dies with it.
    await jobs.enqueue('record', { value: 'lost-with-redis' }, { jobId: 'lost-with-redis', delayMs: 2_000 });
    await eventually(async () => (await outboxRows()).some((row) => row.job_id === 'lost-with-redis' && row.handed_at !== null));

    await redis.stop();
    const enqueued = await timed(() => jobs.enqueue('record', { value: 'during' }, { jobId: 'during' }), COMMAND_BOUND_MS);
    expect(enqueued).toMatchObject({ outcome: 'resolved' });
    const probe = await timed(() => jobs.counts(), COMMAND_BOUND_MS);
    expect(probe).toMatchObject({ outcome: 'rejected' });

    // The restarted server is empty: the jobs and the schedule must come from the outbox and this process.
    await redis.start();
    const redisUpAt = Date.now();
    await eventually(() => seen.includes('during') && seen.includes('lost-with-redis'), 30_000);
    const resumedMs = Date.now() - redisUpAt;
    await eventually(scheduleInRedis);
    await eventually(() => jobs.settled());
    expect(seen.sort()).toEqual(['before', 'during', 'lost-with-redis']);
    console.info(`Redis crashed at runtime: enqueue took ${enqueued.ms} ms, counts() failed in ${probe.ms} ms, both jobs ran within ${resumedMs} ms after Redis returned`);
  }, 60_000);

  it('answer within the command timeout when Redis holds the connection but stops answering', async () => {
    await redis.start();
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'before' }, { jobId: 'before' });
    await eventually(() => seen.includes('before'));

    redis.freeze();
    try {
      const probe = await timed(() => jobs.counts(), COMMAND_BOUND_MS);
      const enqueued = await timed(() => jobs.enqueue('record', { value: 'frozen' }, { jobId: 'frozen' }), COMMAND_BOUND_MS);
      console.info(`frozen Redis: counts() failed in ${probe.ms} ms, enqueue wrote its job to the outbox in ${enqueued.ms} ms (command timeout ${REDIS_COMMAND_TIMEOUT_MS} ms)`);
      expect(probe).toMatchObject({ outcome: 'rejected' });
      expect(enqueued).toMatchObject({ outcome: 'resolved' });
    } finally {
      redis.thaw();
    }
    await eventually(() => seen.includes('frozen'));
  });

  it('keep an interval schedule through a Redis crash, run it at once as BullMQ does, and remove it when it is turned off', async () => {
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
    const withSchedule = [hourly({ everyMinutes: 60, input: {} })] as JobDefinition<never>[];
    runner = outbox(BullMqJobRunner.create(redis.url, withSchedule, { onError: () => undefined, log, prefix }), withSchedule);
    await eventually(async () => (await schedulerOf('hourly-sync'))?.every === 3_600_000);
    await eventually(() => runs.length === 1);

    await redis.stop();
    await redis.start();
    await eventually(async () => (await schedulerOf('hourly-sync'))?.every === 3_600_000);

    // The next release has the interval at 0: the definition has no schedule, and Redis must forget it.
    await runner.close();
    const without = [hourly(undefined)] as JobDefinition<never>[];
    runner = outbox(BullMqJobRunner.create(redis.url, without, { onError: () => undefined, log, prefix }), without);
    await eventually(async () => (await schedulerOf('hourly-sync')) === undefined);
  });

  it('close within seconds while Redis is down, losing nothing: the next process runs the job once Redis is up', async () => {
    const jobs = startRunner();
    await jobs.enqueue('record', { value: 'across-a-restart' }, { jobId: 'across-a-restart' });
    const closing = await timed(() => jobs.close(), 5000 * 3 + 5000);
    runner = null;
    console.info(`closing with Redis down took ${closing.ms} ms`);
    expect(closing).toMatchObject({ outcome: 'resolved' });
    expect(await outboxRows()).toEqual([expect.objectContaining({ job_id: 'across-a-restart', handed_at: null })]);

    await redis.start();
    startRunner();
    await eventually(() => seen.includes('across-a-restart'));
    await eventually(async () => (await outboxRows()).length === 0);
  });
});
