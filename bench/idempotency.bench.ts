import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { alternate } from './support/alternate.js';
import { benchPostgres } from './support/bench-postgres.js';
import { httpLoadSamples } from './support/http-load.js';
import { stopChildren } from './support/peers/peer-process.js';
import { describeFigures } from './support/side-by-side.js';
import { startSeededService } from './support/seeded-service.js';
import { postmasterPid, treeCpuSeconds } from './support/process-cpu.js';
import { cpuSeconds, createScratchDatabase } from './support/service-process.js';

/**
 * npm run bench:idempotency [-- --transactions 20000 --duration 10 --connections 32 --rounds 3]
 * What an Idempotency-Key costs a write: PATCH /v1/transactions/{id} with a new key on every
 * request beside the same PATCH without one, on one seeded service, in turns after a warm-up each.
 */
const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '20000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
  },
});
const connections = Number(values.connections);
const schedule = { durationS: Number(values.duration), warmUpS: 2, rounds: Number(values.rounds) };
const port = 39_650;

async function main(): Promise<void> {
  const server = await benchPostgres(port + 10);
  const scratch = await createScratchDatabase('ledgerline_idempotency', server.adminUrl);
  const children: ChildProcess[] = [];
  try {
    console.log(`on ${server.description}`);
    const { base, auth, ids, database, service } = await startSeededService(scratch.url, port, Number(values.transactions), children);
    let sent = 0;
    const patch = (keyed: boolean): autocannon.Request => ({
      method: 'PATCH',
      headers: auth,
      setupRequest: (request) => {
        sent += 1;
        const headers = keyed ? { ...auth, 'Idempotency-Key': `bench-${process.pid}-${sent}` } : auth;
        return { ...request, headers, path: `/v1/transactions/${ids[sent % ids.length]}`, body: JSON.stringify({ notes: `bench ${sent}` }) };
      },
    });
    // The steadier figure on a shared machine: CPU seconds (the service's and the database server's) per answer.
    const postgres = await postmasterPid(database.pool);
    const cpu = { plain: { service: 0, postgres: 0, answers: 0 }, keyed: { service: 0, postgres: 0, answers: 0 } };
    const counted = (keyed: boolean) => async (seconds: number) => {
      const before = { service: cpuSeconds(service), postgres: treeCpuSeconds(postgres) };
      const samples = await httpLoadSamples(base, patch(keyed), connections, seconds);
      const account = keyed ? cpu.keyed : cpu.plain;
      account.service += cpuSeconds(service) - before.service;
      account.postgres += treeCpuSeconds(postgres) - before.postgres;
      account.answers += samples.latencies.length;
      return samples;
    };
    const figures = await alternate(counted(false), counted(true), schedule);
    const kept = Number((await database.pool.query<{ count: string }>('SELECT count(*) FROM idempotency_keys')).rows[0].count);
    await database.close();
    const overhead = 1 - figures.ledgerline.requestsPerSecond / figures.reference.requestsPerSecond;
    const perAnswer = (account: { service: number; postgres: number; answers: number }, part: 'service' | 'postgres' | 'both' = 'both') =>
      ((part === 'both' ? account.service + account.postgres : account[part]) / Math.max(1, account.answers)) * 1e6;
    const cpuOverhead = perAnswer(cpu.keyed) / perAnswer(cpu.plain) - 1;
    console.log(`\n${connections} connections, ${schedule.durationS} s per target in ${schedule.rounds} turns after ${schedule.warmUpS} s of warm-up, load generator on the same machine`);
    console.log(`PATCH without a key: ${describeFigures(figures.reference)}`);
    console.log(`PATCH with a new Idempotency-Key each: ${describeFigures(figures.ledgerline)} (${kept} answers kept)`);
    const describeCpu = (account: typeof cpu.plain) => `${perAnswer(account).toFixed(0)} µs (service ${perAnswer(account, 'service').toFixed(0)} + PostgreSQL ${perAnswer(account, 'postgres').toFixed(0)})`;
    console.log(`CPU per answer: ${describeCpu(cpu.plain)} without a key, ${describeCpu(cpu.keyed)} with one`);
    console.log(`the key costs ${(cpuOverhead * 100).toFixed(1)} % more CPU per PATCH and ${(overhead * 100).toFixed(1)} % of the throughput (goal ≤ 10 %: ${Math.max(cpuOverhead, overhead) <= 0.1 ? 'met' : 'not met'} on both)`);
  } finally {
    await stopChildren(children);
    await scratch.drop();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
