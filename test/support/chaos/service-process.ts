import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/infrastructure/jobs/private-redis.test-support.js';
import { ensureBuiltService } from '../built-service.js';

/**
 * The built service (`node dist/src/main.js`, as `npm start` runs it) as a child process on a
 * private port of 127.0.0.1, which a chaos test may SIGKILL and start again on the same port.
 */
export interface ServiceProcess {
  readonly name: string;
  readonly baseUrl: string;
  readonly pid: number | null;
  readonly running: boolean;
  /** Running and answered /health since it was last started. */
  readonly ready: boolean;
  /** Starts it and waits until /health answers 200; resolves to the milliseconds that took. */
  start(): Promise<number>;
  /** SIGKILL: no shutdown hook runs, in-flight transactions are cut off. */
  kill9(): Promise<void>;
  /** SIGSTOP: it keeps its connections and answers nothing, like a hung host; `thaw` (SIGCONT) wakes it. */
  freeze(): void;
  thaw(): void;
  /** SIGTERM and wait, keeping DATA_DIR for a later `start`; resolves to the milliseconds until it exited. */
  terminate(): Promise<number>;
  /** SIGTERM and wait: the graceful stop, for teardown. */
  stop(): Promise<void>;
  /** The last lines it wrote (warn and above), for a failure message. */
  logTail(): string;
}

export interface ServiceOptions {
  readonly databaseUrl: string;
  /** Absent: jobs run in process. */
  readonly redisUrl?: string;
  readonly env?: Record<string, string>;
}

const TAIL_LINES = 20;

export async function serviceProcess(name: string, options: ServiceOptions): Promise<ServiceProcess> {
  const main = await ensureBuiltService();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ledgerline-chaos-'));
  const env = {
    ...process.env,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    LINK_TOKEN_KEY: randomBytes(32).toString('base64'),
    BANK_LINK_SYNC_INTERVAL_MINUTES: '0',
    BROKERAGE_SYNC_INTERVAL_MINUTES: '0',
    ...options.env,
  };
  let child: ChildProcess | null = null;
  let healthy = false;
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((line) => line.slice(0, 400)));
    tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
  };
  const exited = (process: ChildProcess) =>
    process.exitCode !== null || process.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => process.once('exit', () => resolve()));

  const service: ServiceProcess = {
    name,
    baseUrl,
    get pid() {
      return child?.pid ?? null;
    },
    get running() {
      return child !== null && child.exitCode === null && child.signalCode === null;
    },
    get ready() {
      return healthy && service.running;
    },
    async start() {
      if (service.running) throw new Error(`${name} is already running`);
      const started = performance.now();
      healthy = false;
      const spawned = spawn(process.execPath, ['--max-semi-space-size=64', main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = spawned;
      spawned.stdout?.on('data', keep);
      spawned.stderr?.on('data', keep);
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (spawned.exitCode !== null || spawned.signalCode !== null) throw new Error(`${name} exited while starting:\n${tail.join('\n')}`);
        const health = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
        if (health?.ok) {
          healthy = true;
          return performance.now() - started;
        }
        if (Date.now() > deadline) throw new Error(`${name} was not healthy within 60 s:\n${tail.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async kill9() {
      const running = child;
      if (!running) return;
      running.kill('SIGKILL');
      await exited(running);
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async terminate() {
      const running = child;
      if (!running || !service.running) return 0;
      const started = performance.now();
      running.kill('SIGTERM');
      await exited(running);
      return performance.now() - started;
    },
    async stop() {
      const running = child;
      running?.kill('SIGCONT');
      child = null;
      if (running && running.exitCode === null && running.signalCode === null) {
        running.kill('SIGTERM');
        const forced = setTimeout(() => running.kill('SIGKILL'), 20_000);
        await exited(running);
        clearTimeout(forced);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
    logTail: () => tail.join('\n'),
  };
  return service;
}
