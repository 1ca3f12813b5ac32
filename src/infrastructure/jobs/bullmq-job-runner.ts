import { Queue, Worker } from 'bullmq';
import { cronOf, type EnqueueOptions, type JobDefinition, type JobRunner, RETRY_ATTEMPTS, RETRY_BASE_DELAY_MS } from './job.js';

const QUEUE = 'ledgerline';

/** With Redis: jobs spread over every instance's worker, retried with backoff, visible in Redis. */
export class BullMqJobRunner implements JobRunner {
  readonly kind = 'bullmq' as const;

  private constructor(
    private readonly queue: Queue,
    private readonly worker: Worker,
  ) {}

  static async start(redisUrl: string, definitions: readonly JobDefinition<never>[], onError: (name: string, error: unknown) => void, prefix = 'ledgerline'): Promise<BullMqJobRunner> {
    const connection = { url: redisUrl, maxRetriesPerRequest: null };
    const byName = new Map(definitions.map((definition) => [definition.name, definition as JobDefinition<unknown>]));
    const queue = new Queue(QUEUE, { connection, prefix });
    const worker = new Worker(
      QUEUE,
      async (job) => {
        const definition = byName.get(job.name);
        if (!definition) throw new Error(`No job named ${job.name}`);
        await definition.handle(job.data);
      },
      { connection, prefix, concurrency: 4 },
    );
    worker.on('failed', (job, error) => onError(job?.name ?? 'unknown', error));
    worker.on('error', (error) => onError('worker', error));
    for (const definition of byName.values()) {
      if (!definition.schedule) continue;
      await queue.upsertJobScheduler(
        definition.name,
        { pattern: cronOf(definition.schedule.dailyAtUtc), tz: 'UTC' },
        { name: definition.name, data: definition.schedule.input, opts: { attempts: RETRY_ATTEMPTS, backoff: { type: 'exponential', delay: RETRY_BASE_DELAY_MS } } },
      );
    }
    await worker.waitUntilReady();
    return new BullMqJobRunner(queue, worker);
  }

  async enqueue<Input>(name: string, input: Input, { jobId }: EnqueueOptions): Promise<void> {
    await this.queue.add(name, input, {
      jobId,
      attempts: RETRY_ATTEMPTS,
      backoff: { type: 'exponential', delay: RETRY_BASE_DELAY_MS },
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  async counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
  }
}
