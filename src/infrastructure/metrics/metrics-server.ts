import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

export interface MetricsEndpoint {
  readonly host: string;
  /** The port it listens on (the one the OS chose when asked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

export interface MetricsExposition {
  readonly contentType: string;
  scrape(): Promise<string>;
}

/**
 * `GET /metrics` on a listener of its own, apart from the API: not behind the API's
 * authentication, rate limits or middleware, and on 127.0.0.1 unless told otherwise
 * (docs/decisions/0021). Anything else is 404.
 */
export async function startMetricsServer(host: string, port: number, exposition: MetricsExposition, log: Logger): Promise<MetricsEndpoint> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(path === '/metrics' ? 405 : 404, { 'Content-Type': 'text/plain; charset=utf-8', ...(path === '/metrics' ? { Allow: 'GET, HEAD' } : {}) });
      response.end(path === '/metrics' ? 'GET /metrics\n' : 'Not found: the metrics listener serves GET /metrics only\n');
      return;
    }
    exposition.scrape().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': exposition.contentType, 'Cache-Control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        log.error({ err: error }, 'metrics scrape failed');
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('metrics scrape failed; see the service log\n');
      },
    );
  });
  // A scraper that keeps its connection open must not hold up shutdown.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => log.error({ err: error }, 'metrics listener failed'));
  const address = server.address() as AddressInfo;
  return {
    host,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
