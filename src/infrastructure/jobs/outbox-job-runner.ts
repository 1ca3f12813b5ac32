import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseConnection } from '../database/database.js';
import type { EnqueueOptions, JobExecutor, JobLog, JobQueueDepth, JobRunner } from './job.js';
import { writeJobs } from './job-outbox.js';
import { isRedisConnectionError } from './redis-options.js';

export interface OutboxJobRunnerOptions {
  readonly log: JobLog;
  /** How often the relay looks for jobs to hand over when nothing woke it. */
  readonly relayIntervalMs?: number;
  /** How often it checks that jobs handed over still exist (BullMQ) or their runner still does (in process). */
  readonly auditIntervalMs?: number;
  /** A job handed to BullMQ longer ago than this is looked up in Redis by the audit. */
  readonly auditAfterMs?: number;
}

const HAND_BATCH = 200;
const FAILED_KEPT_DAYS = 7;

interface OutboxRow {
  job_id: string;
  name: string;
  input: unknown;
  /** What is left of its delay, by the database's clock (the one that set it). */
  delay_ms: number;
}

/**
 * What the service queues jobs through (decision 0038): `enqueue` writes the job into the outbox
 * and only then resolves; a relay in every process hands rows to the executor — BullMQ, or this
 * process's runner — when it can take them, and a job's row goes when the job completes (or is
 * marked failed when its retries are used up). The relay works over a connection of its own,
 * whose backend names the jobs it handed to this process's runner: when that connection is gone
 * (the process died), those jobs go back to the outbox for another runner. Jobs handed to BullMQ
 * are looked up in Redis now and then, and handed again if Redis lost them (a restart).
 */
export class OutboxJobRunner implements JobRunner {
  private client: pg.Client | null = null;
  private closed = false;
  private looping: Promise<void> | null = null;
  private wakeRelay: (() => void) | null = null;
  private lastAudit = 0;

  private constructor(
    private readonly database: Pick<DatabaseConnection, 'db' | 'url'>,
    private readonly executor: JobExecutor,
    private readonly names: ReadonlySet<string>,
    private readonly options: OutboxJobRunnerOptions,
  ) {}

  static start(database: Pick<DatabaseConnection, 'db' | 'url'>, executor: JobExecutor, names: Iterable<string>, options: OutboxJobRunnerOptions): OutboxJobRunner {
    const runner = new OutboxJobRunner(database, executor, new Set(names), options);
    executor.start(runner, (jobId, outcome) => runner.finished(jobId, outcome.failed));
    executor.onReady(() => runner.wake());
    runner.looping = runner.loop();
    return runner;
  }

  get kind(): JobRunner['kind'] {
    return this.executor.kind;
  }

  async enqueue<Input>(name: string, input: Input, { jobId, delayMs = 0, cause }: EnqueueOptions): Promise<void> {
    if (!this.names.has(name)) throw new Error(`No job named ${name}`);
    await writeJobs(this.database.db, [{ name, input, jobId, delayMs, ...(cause ? { cause } : {}) }]);
    this.wake();
  }

  async counts(): Promise<Record<string, number>> {
    const [counts, waiting] = await Promise.all([this.executor.counts(), this.outboxCounts()]);
    return { ...counts, ...waiting };
  }

  /** The executor's queue, and as `held` the jobs in the outbox not handed to it yet. */
  async queueDepth(): Promise<JobQueueDepth> {
    const [depth, waiting] = await Promise.all([this.executor.queueDepth(), this.outboxCounts().catch(() => ({ held: 0 }))]);
    return { queue: depth.queue, held: waiting.held };
  }

  /** Whether every job asked for has finished (tests settle on it). */
  async settled(): Promise<boolean> {
    const row = await this.database.db.selectFrom('job_outbox').select((eb) => eb.fn.countAll<number>().as('open')).where('failed_at', 'is', null).executeTakeFirstOrThrow();
    return Number(row.open) === 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    await this.looping;
    await this.executor.close();
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  /** Cuts the relay's wait short: something was written, or the executor can take jobs again. */
  wake(): void {
    this.wakeRelay?.();
  }

  private async outboxCounts(): Promise<{ held: number; outboxFailed: number }> {
    const row = await this.database.db
      .selectFrom('job_outbox')
      .select((eb) => [
        eb.fn.count<number>('job_id').filterWhere('handed_at', 'is', null).filterWhere('failed_at', 'is', null).as('held'),
        eb.fn.count<number>('job_id').filterWhere('failed_at', 'is not', null).as('outboxFailed'),
      ])
      .executeTakeFirstOrThrow();
    return { held: Number(row.held), outboxFailed: Number(row.outboxFailed) };
  }

  private async finished(jobId: string, failed: string | undefined): Promise<void> {
    if (failed === undefined) await this.database.db.deleteFrom('job_outbox').where('job_id', '=', jobId).execute();
    else await this.database.db.updateTable('job_outbox').set({ failed_at: new Date(), last_error: failed.slice(0, 2000) }).where('job_id', '=', jobId).execute();
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      let more = false;
      try {
        const client = await this.connected();
        more = await this.handOver(client);
        if (Date.now() - this.lastAudit >= (this.options.auditIntervalMs ?? 30_000)) {
          this.lastAudit = Date.now();
          if (await this.audit(client)) more = true;
        }
      } catch (error) {
        if (!this.closed && !isRedisConnectionError(error)) this.options.log.warn({ err: error }, 'job outbox relay failed; retrying');
        if (this.client && isConnectionLost(error)) await this.dropClient();
      }
      if (!more && !this.closed) await this.pause(this.options.relayIntervalMs ?? 250);
    }
  }

  /** Hands the outbox's oldest jobs to the executor; true when there may be more. */
  private async handOver(client: pg.Client): Promise<boolean> {
    if (!this.executor.accepting()) return false;
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<OutboxRow>(
        `SELECT job_id, name, input, greatest(0, ceil(extract(epoch FROM run_at - now()) * 1000))::float8 AS delay_ms
           FROM job_outbox WHERE handed_at IS NULL AND failed_at IS NULL
          ORDER BY created_at LIMIT ${HAND_BATCH} FOR UPDATE SKIP LOCKED`,
      );
      const handed: string[] = [];
      const refused: { jobId: string; error: string }[] = [];
      for (const row of rows) {
        try {
          await this.executor.take(row.name, row.input, { jobId: row.job_id, delayMs: row.delay_ms });
          handed.push(row.job_id);
        } catch (error) {
          if (isRedisConnectionError(error) || !this.executor.accepting()) break;
          // A job the executor refuses (a name this release no longer has) would block the rest behind it.
          refused.push({ jobId: row.job_id, error: error instanceof Error ? error.message : String(error) });
        }
      }
      if (handed.length > 0) {
        await client.query(
          `UPDATE job_outbox SET handed_at = now(), handed_to_pid = pg_backend_pid(), handed_to_application = current_setting('application_name') WHERE job_id = ANY($1::text[])`,
          [handed],
        );
      }
      for (const { jobId, error } of refused) await client.query('UPDATE job_outbox SET failed_at = now(), last_error = $2 WHERE job_id = $1', [jobId, error]);
      await client.query('COMMIT');
      return rows.length === HAND_BATCH && handed.length === rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * Jobs handed to a runner that is gone go back to the outbox; jobs handed to BullMQ a while ago
   * are looked up there: completed (this process missed the news) → removed, failed → marked,
   * unknown to Redis → handed again. Failed jobs are kept a week for operators. True when some
   * went back.
   */
  private async audit(client: pg.Client): Promise<boolean> {
    await client.query(`DELETE FROM job_outbox WHERE failed_at < now() - interval '${FAILED_KEPT_DAYS} days'`);
    if (this.executor.kind === 'in-process') {
      const returned = await client.query(
        `UPDATE job_outbox o SET handed_at = NULL, handed_to_pid = NULL, handed_to_application = NULL
          WHERE o.handed_at IS NOT NULL AND o.failed_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = o.handed_to_pid AND a.application_name = o.handed_to_application)`,
      );
      return (returned.rowCount ?? 0) > 0;
    }
    if (!this.executor.accepting()) return false;
    const { rows } = await client.query<{ job_id: string }>(
      `SELECT job_id FROM job_outbox WHERE handed_at < now() - $1 * interval '1 millisecond' AND failed_at IS NULL ORDER BY handed_at LIMIT 500`,
      [this.options.auditAfterMs ?? 60_000],
    );
    let returned = false;
    for (const { job_id: jobId } of rows) {
      const handed = await this.executor.stateOf(jobId);
      if (handed?.state === 'completed') await this.finished(jobId, undefined);
      else if (handed?.state === 'failed') await this.finished(jobId, handed.reason);
      else if (handed?.state === 'missing') {
        await client.query('UPDATE job_outbox SET handed_at = NULL WHERE job_id = $1', [jobId]);
        returned = true;
      }
    }
    return returned;
  }

  private async connected(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.database.url, application_name: `ledgerline-jobs:${randomBytes(6).toString('hex')}`, keepAlive: true, connectionTimeoutMillis: 5_000, options: '-c statement_timeout=10000' });
    client.on('error', () => undefined);
    await client.connect();
    this.client = client;
    return client;
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeRelay = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeRelay = done;
    });
  }
}

function isConnectionLost(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === undefined || code.startsWith('08') || code === '57P01' || /Connection terminated|not queryable/i.test(String((error as Error).message));
}
