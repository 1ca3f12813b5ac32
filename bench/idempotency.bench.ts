import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { alternate } from './support/alternate.js';
import { benchPostgres } from './support/bench-postgres.js';
import { httpLoadSamples } from './support/http-load.js';
import { stopChildren } from './support/peers/peer-process.js';
import { describeFigures } from './support/side-by-side.js';
import { startSeededService } from './support/seeded-service.js';
import { createScratchDatabase } from './support/service-process.js';

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
    const { base, auth, ids, database } = await startSeededService(scratch.url, port, Number(values.transactions), children);
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
    const figures = await alternate(
      (seconds) => httpLoadSamples(base, patch(false), connections, seconds),
      (seconds) => httpLoadSamples(base, patch(true), connections, seconds),
      schedule,
    );
    const kept = Number((await database.pool.query<{ count: string }>('SELECT count(*) FROM idempotency_keys')).rows[0].count);
    await database.close();
    const overhead = 1 - figures.ledgerline.requestsPerSecond / figures.reference.requestsPerSecond;
    console.log(`\n${connections} connections, ${schedule.durationS} s per target in ${schedule.rounds} turns after ${schedule.warmUpS} s of warm-up, load generator on the same machine`);
    console.log(`PATCH without a key: ${describeFigures(figures.reference)}`);
    console.log(`PATCH with a new Idempotency-Key each: ${describeFigures(figures.ledgerline)} (${kept} answers kept)`);
    console.log(`the key costs ${(overhead * 100).toFixed(1)} % of the throughput (goal ≤ 10 %: ${overhead <= 0.1 ? 'met' : 'not met'})`);
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
