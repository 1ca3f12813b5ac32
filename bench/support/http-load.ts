import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import type { LoadSamples } from './raw-load.js';

/** autocannon against `url` with `request` for `durationS`: the latency of every 2xx answer (an error page is not throughput). */
export async function httpLoadSamples(url: string, request: autocannon.Request, connections: number, durationS: number): Promise<LoadSamples> {
  const latencies: number[] = [];
  // Without a callback autocannon returns its run's event emitter, made thenable; the types only say Promise.
  const instance = autocannon({ url, connections, duration: durationS, requests: [request] }) as unknown as EventEmitter & Promise<autocannon.Result>;
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || latencies.length === 0) console.warn(`\n${request.method ?? 'GET'} ${url}${request.path ?? ''}: ${latencies.length} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts in ${durationS} s`);
  return { latencies, seconds: result.duration };
}
