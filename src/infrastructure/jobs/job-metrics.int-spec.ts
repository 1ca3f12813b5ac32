import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../core/clock.js';
import { createMigratedDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { DatabaseConnection } from '../database/database.js';
import { createLogger } from '../logging/logger.js';
import { BullMqJobRunner } from './bullmq-job-runner.js';
import { InProcessJobRunner } from './in-process-job-runner.js';
import type { JobAttemptObserver, JobDefinition, JobExecutor, JobRunner } from './job.js';
import { OutboxJobRunner } from './outbox-job-runner.js';
import { type PrivateRedis, privateRedis } from './private-redis.test-support.js';

const log = createLogger('silent');
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `ledgerline-test-${randomUUID()}`;

interface Attempt {
  readonly name: string;
  readonly outcome: 'completed' | 'failed';
  readonly seconds: number;
}

let database: TestDatabase;
let connection: DatabaseConnection;

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
});

function outbox(executor: JobExecutor, definitions: readonly JobDefinition<never>[]): OutboxJobRunner {
  return OutboxJobRunner.start(connection, executor, definitions.map((definition) => definition.name), { log, relayIntervalMs: 50 });
}

const runners: Array<[string, (definitions: JobDefinition<never>[], observer: JobAttemptObserver) => JobRunner]> = [
  ['in-process', (definitions, observer) => outbox(new InProcessJobRunner(definitions, systemClock, () => undefined, { observer }), definitions)],
  ['BullMQ', (definitions, observer) => outbox(BullMqJobRunner.create(redisUrl, definitions, { onError: () => undefined, log, prefix, observer }), definitions)],
];

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached in time: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

afterAll(async () => {
  // The delayed job would otherwise stay in the shared Redis for good.
  const queue = new Queue('ledgerline', { connection: { url: redisUrl }, prefix });
  await queue.obliterate({ force: true });
  await queue.close();
  await connection.close();
  await database.drop();
});

afterEach(async () => {
  await connection.db.deleteFrom('job_outbox').execute();
});

describe.each(runners)('%s job runner, for metrics', (_kind, start) => {
  it('tells the observer how each attempt ended and how long it took, and reports its queue by state', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let failuresLeft = 1;
    const definitions = [
      { name: 'blocks', handle: () => released },
      { name: 'fails-once', handle: async () => { if (failuresLeft-- > 0) throw new Error('transient'); } },
      { name: 'later', handle: async () => undefined },
    ] as JobDefinition<never>[];
    const attempts: Attempt[] = [];
    const runner = start(definitions, { attemptEnded: (name, outcome, seconds) => attempts.push({ name, outcome, seconds }) });
    try {
      await eventually(async () => (await runner.queueDepth()).queue !== null, 'the runner answers');
      expect(await runner.queueDepth()).toEqual({ queue: { waiting: 0, delayed: 0, active: 0 }, held: 0 });
      await runner.enqueue('blocks', {}, { jobId: 'blocks-1' });
      await runner.enqueue('later', {}, { jobId: 'later-1', delayMs: 600_000 });
      await runner.enqueue('fails-once', {}, { jobId: 'fails-once-1' });
      await eventually(() => attempts.some((attempt) => attempt.name === 'fails-once' && attempt.outcome === 'failed'), 'the first attempt fails');
      await eventually(async () => {
        const { queue } = await runner.queueDepth();
        return queue?.active === 1 && queue.delayed >= 1;
      }, 'one job running, one or two delayed');
      const heldFor = Date.now();
      await eventually(() => attempts.some((attempt) => attempt.name === 'fails-once' && attempt.outcome === 'completed'), 'the retry completes');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 300 - (Date.now() - heldFor))));
      release();
      await eventually(() => attempts.some((attempt) => attempt.name === 'blocks'), 'the blocked job completes');
      await eventually(async () => (await runner.queueDepth()).queue?.active === 0, 'nothing running');
      expect(await runner.queueDepth()).toEqual({ queue: { waiting: 0, delayed: 1, active: 0 }, held: 0 });
      expect(attempts.map(({ name, outcome }) => `${name} ${outcome}`).sort()).toEqual(['blocks completed', 'fails-once completed', 'fails-once failed']);
      const blocked = attempts.find((attempt) => attempt.name === 'blocks') as Attempt;
      console.info(`${_kind} runner: attempts ${attempts.map((attempt) => `${attempt.name} ${attempt.outcome} ${(attempt.seconds * 1000).toFixed(1)} ms`).join(', ')}`);
      // It was held for at least 300 ms: its duration is the handler's, not the enqueue's.
      expect(blocked.seconds).toBeGreaterThanOrEqual(0.3);
    } finally {
      release();
      await runner.close();
    }
  });
});

describe('BullMQ jobs, for metrics, while Redis is away', () => {
  let redis: PrivateRedis;
  let runner: OutboxJobRunner | null = null;
  beforeEach(async () => {
    redis = await privateRedis();
  });
  afterEach(async () => {
    await runner?.close();
    await redis.stop();
  });

  it('answer the queue depth at once: the queue unknown, the jobs waiting in the outbox known', async () => {
    const definitions = [{ name: 'later', handle: async () => undefined }] as JobDefinition<never>[];
    const jobs = outbox(BullMqJobRunner.create(redis.url, definitions, { onError: () => undefined, log, prefix: 'ledgerline-metrics-outage' }), definitions);
    runner = jobs;
    await jobs.enqueue('later', {}, { jobId: 'held-1' });
    await jobs.enqueue('later', {}, { jobId: 'held-2' });
    const started = Date.now();
    expect(await jobs.queueDepth()).toEqual({ queue: null, held: 2 });
    console.info(`BullMQ runner with Redis down: queueDepth() answered in ${Date.now() - started} ms`);
    await redis.start();
    await eventually(async () => (await jobs.queueDepth()).held === 0, 'the outbox handed over once Redis is up');
    expect((await jobs.queueDepth()).queue).not.toBeNull();
  });
});
