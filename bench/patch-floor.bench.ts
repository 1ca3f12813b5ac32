import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { alternate } from './support/alternate.js';
import { benchPostgres } from './support/bench-postgres.js';
import { httpLoadSamples } from './support/http-load.js';
import { startLoadPeer, startPeerServer, stopChildren } from './support/peers/peer-process.js';
import { startSeededService } from './support/seeded-service.js';
import { createScratchDatabase, stopService } from './support/service-process.js';
import { type Comparison, sideBySideTable } from './support/side-by-side.js';

/**
 * npm run bench:patch-floor [-- --transactions 20000 --duration 10 --connections 32 --rounds 2]
 * Whether any design of PATCH /v1/transactions/{id} could reach Emmett's append here: the service
 * builds the read models of `transactions` seeded transactions and stops; then the least a PATCH
 * over HTTP can do (bench/support/peers/minimal-patch.server.ts: Node's http, one statement that
 * appends, updates the row and inserts the activity entry, no framework, no auth, no daemon) is
 * measured in turns beside Emmett's one-event append from its own process, as `npm run bench` does;
 * and the same server's constant answer (HTTP and the load generator alone) beside Emmett again.
 */
const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '20000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '2' },
  },
});
const transactions = Number(values.transactions);
const connections = Number(values.connections);
const schedule = { durationS: Number(values.duration), warmUpS: 2, rounds: Number(values.rounds) };
const POOL_SIZE = 30;
const port = 39_600;

async function main(): Promise<void> {
  const server = await benchPostgres(port + 10);
  const scratch = await createScratchDatabase('ledgerline_floor', server.adminUrl);
  const emmettScratch = await createScratchDatabase('ledgerline_floor_emmett', server.adminUrl);
  const children: ChildProcess[] = [];
  try {
    console.log(`on ${server.description}`);
    const seeded = await startSeededService(scratch.url, port, transactions, children);
    const { ids } = seeded;
    await stopService(seeded.service);
    await seeded.database.close();
    console.log('the service is stopped');

    const floor = await startPeerServer('minimal-patch.server', port + 1, '/hello', { DATABASE_URL: scratch.url, POOL_SIZE: String(POOL_SIZE), USER_ID: seeded.userId }, children);
    const emmett = await startLoadPeer('emmett-append', { DATABASE_URL: emmettScratch.url, CONNECTIONS: String(connections), POOL_SIZE: String(POOL_SIZE), STREAMS: String(Math.min(2000, ids.length)) }, children);
    let sent = 0;
    const patch: autocannon.Request = {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      setupRequest: (request) => {
        sent += 1;
        return { ...request, path: `/v1/transactions/${ids[sent % ids.length]}`, body: JSON.stringify({ notes: `floor ${sent}` }) };
      },
    };
    const emmettName = 'Emmett PostgreSQL event store, one-event append (in process, no HTTP)';
    const comparisons: Comparison[] = [];
    process.stdout.write('measuring the floor PATCH');
    const patchFigures = await alternate(emmett, (seconds) => httpLoadSamples(floor, patch, connections, seconds), schedule);
    comparisons.push({ operation: 'floor `PATCH` over HTTP: one statement (append + row + activity), Node http, nothing else', ledgerline: patchFigures.ledgerline, reference: emmettName, referenceFigures: patchFigures.reference, goalRatio: 1, goalP99Ms: 50 });
    process.stdout.write('\rmeasuring HTTP alone        ');
    const helloFigures = await alternate(emmett, (seconds) => httpLoadSamples(floor, { method: 'GET', path: '/hello' }, connections, seconds), schedule);
    comparisons.push({ operation: 'HTTP alone: the same server answering a constant', ledgerline: helloFigures.ledgerline, reference: emmettName, referenceFigures: helloFigures.reference, goalRatio: 1 });
    console.log(`\r${transactions} transactions, ${connections} connections, ${schedule.durationS} s per target in ${schedule.rounds} turns after ${schedule.warmUpS} s of warm-up, load generator on the same machine\n`);
    for (const line of sideBySideTable(connections, comparisons, { peakRssMb: 0, highWaterMarkMb: 0, goalMb: 300 }).slice(0, -1)) console.log(line);
  } finally {
    await stopChildren(children);
    await scratch.drop();
    await emmettScratch.drop();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
