import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import request from 'supertest';
import { type PrivateRedis, privateRedis } from '../src/infrastructure/jobs/private-redis.test-support.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The service with Redis (on a private redis-server this file kills and restarts): Redis down at
 * boot, and Redis crashing mid-run under load. The API must keep answering, the rate limit must
 * keep holding, and jobs must reach BullMQ once Redis is back.
 */

const JOB = 'balance-snapshots-nightly';
const account = (name: string) => ({ name, type: 'bank', subtype: 'checking', currentBalance: 100 });

/** Frozen inside one rate-limit window, so counts never reset mid-test. */
function frozenClock() {
  let at = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
  return { now: () => new Date(at), advance: (ms: number) => (at += ms) };
}

async function eventually<T>(attempt: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function completedJobs(t: TestApp): Promise<number | undefined> {
  const counts = await t.runtime.jobs.counts();
  return counts.completed >= 1 && counts.held === 0 ? counts.completed : undefined;
}

async function scheduleInRedis(redis: PrivateRedis): Promise<boolean> {
  const queue = new Queue('ledgerline', { connection: { url: redis.url }, prefix: 'ledgerline' });
  try {
    return (await queue.getJobScheduler(JOB)) !== undefined;
  } finally {
    await queue.close();
  }
}

async function health(t: TestApp): Promise<{ ms: number; redis: string; status: number }> {
  const started = Date.now();
  const response = await request(t.server).get('/health');
  return { ms: Date.now() - started, redis: response.body.checks?.redis, status: response.status };
}

describe('Redis down at boot', () => {
  let redis: PrivateRedis;
  let t: TestApp | null = null;
  beforeAll(async () => {
    redis = await privateRedis();
  });
  afterAll(async () => {
    await t?.close();
    await redis.stop();
  });

  it('the service starts and serves with the rate limit counted in process, then runs jobs through BullMQ once Redis starts', async () => {
    const clock = frozenClock();
    const bootStarted = Date.now();
    t = await startTestApp({ clock, env: { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '8' } });
    const bootMs = Date.now() - bootStarted;
    expect(t.runtime.jobs.kind).toBe('bullmq');

    const { key } = await t.newUser();
    await t.as(key).post('/v1/accounts', account('Checking')).expect(201);
    for (let i = 0; i < 7; i += 1) await t.as(key).get('/v1/accounts').expect(200);
    const limited = await t.as(key).get('/v1/accounts').expect(429);
    expect(limited.headers['retry-after']).toBeDefined();

    const probe = await health(t);
    expect(probe.redis).toBe('down');
    expect(probe.ms).toBeLessThan(2500);

    await t.runtime.jobs.enqueue(JOB, {}, { jobId: 'enqueued-while-redis-was-down' });
    expect(await t.runtime.jobs.counts().catch(() => 'down')).toBe('down');

    await redis.start();
    const redisUpAt = Date.now();
    await eventually(() => completedJobs(t as TestApp));
    const jobRanMs = Date.now() - redisUpAt;
    await eventually(async () => ((await scheduleInRedis(redis)) ? true : undefined));

    // Counting moves to Redis, and the hits counted in process this window still count there.
    const other = await t.newUser();
    await t.as(other.key).get('/v1/accounts').expect(200);
    await t.as(key).get('/v1/accounts').expect(429);
    const direct = new Redis(redis.url);
    try {
      expect(await direct.keys(`ledgerline:rate-limit:user:${other.userId}:*`)).toHaveLength(1);
    } finally {
      direct.disconnect();
    }
    clock.advance(60_000);
    await t.as(key).get('/v1/accounts').expect(200);
    expect((await health(t)).redis).toBe('up');

    console.log(
      [
        'Redis down at boot:',
        `  boot with REDIS_URL at a dead port: ${bootMs} ms (database creation included)`,
        `  API: 1 POST + 7 GET answered 201/200, the 9th request of the minute 429 (limit 8, counted in process)`,
        `  /health: redis "${probe.redis}" in ${probe.ms} ms (HTTP ${probe.status})`,
        `  the job enqueued during the outage completed in BullMQ ${jobRanMs} ms after Redis started; schedule upserted`,
      ].join('\n'),
    );
  }, 60_000);
});

interface Outcome {
  readonly phase: 'before' | 'during' | 'after';
  readonly ok: boolean;
  readonly ms: number;
  readonly detail: string;
}

describe('Redis stopped mid-run', () => {
  let redis: PrivateRedis;
  let t: TestApp | null = null;
  beforeAll(async () => {
    redis = await privateRedis();
    await redis.start();
  });
  afterAll(async () => {
    await t?.close();
    await redis.stop();
  });

  it('fails no request while Redis is away, and a job enqueued meanwhile runs once it returns', async () => {
    t = await startTestApp({ clock: frozenClock(), env: { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '100000' } });
    const app = t;
    const { key } = await app.newUser();
    const { body: created } = await app.as(key).post('/v1/accounts', account('Checking')).expect(201);
    await app.runtime.jobs.enqueue(JOB, {}, { jobId: 'before-the-outage' });
    await eventually(() => completedJobs(app));

    let phase: Outcome['phase'] = 'before';
    let sending = true;
    const outcomes: Outcome[] = [];
    const send = async (worker: number) => {
      for (let i = 0; sending; i += 1) {
        const at = phase;
        const started = Date.now();
        const kind = i % 3;
        const [call, expected] =
          kind === 0
            ? [app.as(key).get('/v1/accounts'), 200]
            : kind === 1
              ? [app.as(key).post('/v1/accounts', account(`Savings ${worker}-${i}`)), 201]
              : [app.as(key).patch(`/v1/accounts/${created.id}/balance`, { current: 100 + i }), 200];
        const outcome = await call.then(
          (response) => ({ ok: response.status === expected, detail: `${response.status}` }),
          (error: Error) => ({ ok: false, detail: error.message.slice(0, 200) }),
        );
        outcomes.push({ phase: at, ms: Date.now() - started, ...outcome });
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(send));

    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.stop();
    phase = 'during';
    await new Promise((resolve) => setTimeout(resolve, 500));
    await app.runtime.jobs.enqueue(JOB, {}, { jobId: 'during-the-outage' });
    const probe = await health(app);
    await new Promise((resolve) => setTimeout(resolve, 2500));

    await redis.start();
    phase = 'after';
    const redisUpAt = Date.now();
    // The restarted Redis is empty: a completed job there is the one held during the outage.
    await eventually(() => completedJobs(app));
    const jobRanMs = Date.now() - redisUpAt;
    await eventually(async () => ((await scheduleInRedis(redis)) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    sending = false;
    await load;

    const inPhase = (name: Outcome['phase']) => outcomes.filter((outcome) => outcome.phase === name);
    const failures = outcomes.filter((outcome) => !outcome.ok);
    const slowest = (name: Outcome['phase']) => Math.max(...inPhase(name).map((outcome) => outcome.ms));
    console.log(
      [
        'Redis stopped mid-run (4 clients: GET /v1/accounts, POST /v1/accounts, PATCH balance):',
        `  requests before ${inPhase('before').length}, during the 3 s outage ${inPhase('during').length}, after ${inPhase('after').length}`,
        `  failures: ${failures.length}${failures.length ? ` (${failures.slice(0, 3).map((failure) => failure.detail).join('; ')})` : ''}`,
        `  slowest request before / during / after the outage: ${slowest('before')} / ${slowest('during')} / ${slowest('after')} ms`,
        `  /health during the outage: redis "${probe.redis}" in ${probe.ms} ms (HTTP ${probe.status})`,
        `  the job enqueued during the outage completed ${jobRanMs} ms after Redis returned; schedule upserted again`,
      ].join('\n'),
    );
    expect(inPhase('during').length).toBeGreaterThan(10);
    expect(failures).toEqual([]);
    expect(probe.redis).toBe('down');
    expect(probe.ms).toBeLessThan(2500);
  }, 60_000);
});
