import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** A database of its own for one benchmark run, on the server at `adminUrl` (BENCH_DATABASE_URL by default); `drop()` removes it. */
export async function createScratchDatabase(prefix: string, adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Resident memory of a child process, in MB. */
export function rssMb(child: ChildProcess | null): number {
  const status = readFileSync(`/proc/${child?.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU time (user + system) a child process has used, in seconds. */
export function cpuSeconds(child: ChildProcess | null): number {
  const fields = readFileSync(`/proc/${child?.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Stops a child process and waits for it to exit. */
export async function stopService(child: ChildProcess | null): Promise<void> {
  child?.kill('SIGTERM');
  await new Promise((resolve) => (child && child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, everyMs = 500): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
