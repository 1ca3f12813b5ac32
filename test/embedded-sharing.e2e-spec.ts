import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../src/infrastructure/jobs/private-redis.test-support.js';
import { isAlive, runningPostmaster, stopPostmaster } from '../src/infrastructure/database/embedded/embedded-server.js';
import { ensureBuiltService } from './support/built-service.js';

/**
 * Issue 21 item 1, as an operator met it: the command line starts the embedded PostgreSQL (the
 * service is down), the service starts while the command runs and shares the server, the command
 * exits; the service must keep working. And a server gone from under the service comes back.
 */
let dataDir: string;
let env: NodeJS.ProcessEnv;
let base: string;
let service: ChildProcess | null = null;
let serviceLog = '';

beforeAll(async () => {
  await ensureBuiltService();
  dataDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-embedded-sharing-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', EMBEDDED_POSTGRES_PORT: String(await freePort()), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.EVENTSTORE_URL;
}, 300_000);

afterAll(async () => {
  if (service && service.exitCode === null) {
    service.kill('SIGKILL');
    await new Promise((resolve) => service?.once('exit', resolve));
  }
  await stopPostmaster(path.join(dataDir, 'postgres'));
  await rm(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const postmaster = () => runningPostmaster(path.join(dataDir, 'postgres'));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${serviceLog.slice(-3000)}`);
    await sleep(everyMs);
  }
}

function cli(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, ['bin/ledgerline.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { child, done: new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr }))) };
}

async function startService(): Promise<void> {
  service = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  service.stdout?.on('data', (chunk: Buffer) => (serviceLog += chunk.toString('utf8')));
  service.stderr?.on('data', (chunk: Buffer) => (serviceLog += chunk.toString('utf8')));
  await until('the service answers /health 200', async () => {
    if (service?.exitCode !== null) throw new Error(`the service exited with ${service?.exitCode}\n${serviceLog}`);
    return fetch(`${base}/health`).then((response) => response.ok, () => false);
  }, 60_000, 50);
}

async function createAccount(key: string, name: string): Promise<number> {
  const response = await fetch(`${base}/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, type: 'bank', subtype: 'checking', currentBalance: 20 }),
  });
  return response.status;
}

/** /health and a write, answered throughout `forMs`. */
async function staysUp(key: string, forMs: number): Promise<void> {
  const deadline = Date.now() + forMs;
  while (Date.now() < deadline) {
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await sleep(250);
  }
  expect(await createAccount(key, `after ${forMs} ms`)).toBe(201);
}

describe('the embedded PostgreSQL shared by the command line and the service', () => {
  it('is not stopped under the service by the command that started it, comes back when stopped from outside, and is stopped by the last process using it', async () => {
    // The command starts the server; it is held (SIGSTOP) once the server is up, while the service starts and shares it.
    const starter = cli(['api-keys', 'create', '--email', 'sharing@example.com']);
    const started = await until('the command line starts the embedded server', async () => (await postmaster())?.status === 'ready', 60_000, 5);
    expect(started).toBe(true);
    starter.child.kill('SIGSTOP');
    expect(starter.child.exitCode).toBeNull();
    const serverPid = (await postmaster())?.pid as number;
    await startService();
    starter.child.kill('SIGCONT');
    const created = await starter.done;
    expect(created.code).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1) as string;

    // Before decision 0030 the command stopped the server here: /health 503, every call 500, for good.
    await staysUp(key, 3000);
    expect((await postmaster())?.pid).toBe(serverPid);

    // A command borrowing the server leaves it running too.
    const status = cli(['projections', 'status']);
    expect((await status.done).code).toBe(0);
    await staysUp(key, 1000);

    // Stopped from outside (as the command line used to): the service starts it again and recovers.
    const stopped = Date.now();
    process.kill(serverPid, 'SIGINT');
    await until('the old server is gone', async () => !isAlive(serverPid), 30_000);
    await until('a write answered 201 after the server was stopped', async () => (await createAccount(key, 'after the restart')) === 201, 30_000, 200);
    console.info(`embedded PostgreSQL stopped under the service: first write answered 201 ${Date.now() - stopped} ms after its fast shutdown began`);
    expect((await postmaster())?.pid).not.toBe(serverPid);
    expect(service?.exitCode).toBeNull();

    // The service is the last one using the server: its graceful stop stops it.
    const exited = new Promise<number | null>((resolve) => service?.once('exit', (code) => resolve(code)));
    service?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await postmaster()).toBeNull();
    expect(readFileSync(path.join(dataDir, 'postgres.log'), 'utf8')).toContain('database system is shut down');
  }, 180_000);
});
