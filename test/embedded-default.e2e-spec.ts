import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../src/infrastructure/jobs/private-redis.test-support.js';

/**
 * The README's promise, run as a user would: the built service on its embedded default (no
 * DATABASE_URL), the operator command line beside it, a first request, a graceful stop, and a
 * restart that still has the data.
 */
const run = promisify(execFile);
let dataDir: string;
let env: NodeJS.ProcessEnv;
let service: ChildProcess | null = null;
let port: number;
let base: string;

beforeAll(async () => {
  if (!existsSync('dist/src/main.js')) throw new Error('dist/ is missing: npm install builds it (npm run build)');
  dataDir = await mkdtemp(path.join(tmpdir(), 'ledgerline-embedded-'));
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_POSTGRES_PORT: String(await freePort()), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.EVENTSTORE_URL;
});

afterAll(async () => {
  if (service && service.exitCode === null) {
    service.kill('SIGTERM');
    await new Promise((resolve) => service?.once('exit', resolve));
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function startService(): Promise<number> {
  const started = Date.now();
  service = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) {
    if (service.exitCode !== null) throw new Error(`the service exited with ${service.exitCode}`);
    const healthy = await fetch(`${base}/health`).then((response) => response.ok, () => false);
    if (healthy) return Date.now() - started;
    if (Date.now() - started > 60_000) throw new Error('no /health within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopService(): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => service?.once('exit', (code) => resolve(code)));
  service?.kill('SIGTERM');
  return exited;
}

describe('the embedded default', () => {
  it('runs from a fresh data directory, works with the command line beside it, stops gracefully and keeps its data', async () => {
    const firstStart = await startService();
    console.info(`embedded default: /health answered ${firstStart} ms after start (fresh data directory, initdb included)`);

    const { stdout } = await run(process.execPath, ['bin/ledgerline.js', 'api-keys', 'create', '--email', 'quickstart@example.com'], { env });
    const key = stdout.trim().split('\n').at(-1) as string;
    expect(key).toMatch(/^pf_live_[0-9A-Za-z]{40}$/);

    const created = await fetch(`${base}/v1/accounts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Wallet', type: 'bank', subtype: 'checking', currentBalance: 20 }),
    });
    expect(created.status).toBe(201);

    const status = await run(process.execPath, ['bin/ledgerline.js', 'projections', 'status'], { env });
    for (const name of ['accounts', 'transactions', 'transaction-activity', 'balance-snapshots']) expect(status.stdout).toContain(name);

    expect(await stopService()).toBe(0);
    const secondStart = await startService();
    console.info(`embedded default: /health answered ${secondStart} ms after a restart`);
    const listed = await fetch(`${base}/v1/accounts`, { headers: { Authorization: `Bearer ${key}` } });
    expect(((await listed.json()) as { accounts: Array<{ name: string }> }).accounts.map((account: { name: string }) => account.name)).toEqual(['Wallet']);
    expect(await stopService()).toBe(0);
  }, 120_000);
});
