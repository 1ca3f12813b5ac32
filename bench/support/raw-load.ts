/** Runs `operation` from `concurrency` loops for `durationMs` and reports what autocannon reports. */
export async function rawLoad(concurrency: number, durationMs: number, operation: (worker: number, iteration: number) => Promise<void>): Promise<LoadFigures> {
  return figuresOf([await rawLoadSamples(concurrency, durationMs, operation)]);
}

/** Runs `operation` from `concurrency` loops for `durationMs`: every call's latency, and how long it all took. */
export async function rawLoadSamples(concurrency: number, durationMs: number, operation: (worker: number, iteration: number) => Promise<void>): Promise<LoadSamples> {
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
  return { latencies, seconds: (Date.now() - started) / 1000 };
}

/** Throughput and latency percentiles over one or more runs of the same load, taken together. */
export function figuresOf(runs: readonly LoadSamples[]): LoadFigures {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requestsPerSecond: seconds > 0 ? latencies.length / seconds : 0, p50: at(0.5), p99: at(0.99), count: latencies.length };
}

/** Milliseconds each successful call took, over `seconds` of load. */
export interface LoadSamples {
  readonly latencies: number[];
  readonly seconds: number;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  count: number;
}
