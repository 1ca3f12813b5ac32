/** Runs `operation` from `concurrency` loops for `durationMs` and reports what autocannon reports. */
export async function rawLoad(concurrency: number, durationMs: number, operation: (worker: number, iteration: number) => Promise<void>): Promise<LoadFigures> {
  const latencies: number[] = [];
  const deadline = Date.now() + durationMs;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let iteration = 0; Date.now() < deadline; iteration += 1) {
        const begin = process.hrtime.bigint();
        await operation(worker, iteration);
        latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requestsPerSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), count: latencies.length };
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  count: number;
}
