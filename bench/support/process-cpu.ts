import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/** CPU seconds (user + system) a process has used, its reaped children's included; 0 once it is gone. */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime, stime, cutime, cstime (fields 14–17 of proc(5), counted from `state`).
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

function parentOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
}

/** CPU seconds of a process and its live children (a PostgreSQL server: the postmaster and its backends). */
export function treeCpuSeconds(rootPid: number): number {
  let total = cpuSecondsOf(rootPid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parentOf(Number(entry)) === rootPid) total += cpuSecondsOf(Number(entry));
    } catch {
      // Gone meanwhile: its time went to the root's reaped children.
    }
  }
  return total;
}

/** The postmaster of the server `pool` is connected to (a backend's parent). It must run on this machine. */
export async function postmasterPid(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return parentOf(rows[0].pid);
}
