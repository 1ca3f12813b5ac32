import { generateSandboxHistory } from '../src/modules/link/sandbox-bank/index.js';

/** npm run bench:sandbox — how long the sandbox bank takes to generate 100,000 transactions. */
const runs: number[] = [];
for (let run = 0; run < 7; run += 1) {
  const started = process.hrtime.bigint();
  const history = generateSandboxHistory({ seed: 42 + run, asOf: '2026-11-20', transactionCount: 100_000 });
  runs.push(Number(process.hrtime.bigint() - started) / 1e6);
  if (run === 0) console.log(`${history.transactions.length} transactions, ${history.plantedStreams.length} planted streams, ${history.accounts.length} accounts`);
}
const median = [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)];
console.log(`generation of 100,000 transactions: median ${median.toFixed(0)} ms (runs ${runs.map((ms) => ms.toFixed(0)).join(', ')} ms; the first is cold)`);
