import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the provider would receive it. */
export interface ApiRequest {
  readonly method: string;
  /** The path as sent, without the query. */
  readonly path: string;
  /** The query string exactly as sent, without the `?`. */
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  /** The body parsed as JSON; null when there is none (or it is not JSON). */
  readonly body: unknown;
}

export interface ApiAnswer {
  readonly status: number;
  /** Sent as JSON; omitted for a 204. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RecordedApiServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every request received, oldest first. */
  readonly requests: ApiRequest[];
  close(): Promise<void>;
}

/** A provider's API on 127.0.0.1 (node:http): each request is answered by `handle`, and kept. */
export async function startRecordedApiServer(handle: (request: ApiRequest) => ApiAnswer | Promise<ApiAnswer>): Promise<RecordedApiServer> {
  const requests: ApiRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const target = incoming.url ?? '/';
      const queryAt = target.indexOf('?');
      let body: unknown;
      try {
        body = rawBody === '' ? null : JSON.parse(rawBody);
      } catch {
        body = null;
      }
      const request: ApiRequest = {
        method: incoming.method ?? 'GET',
        path: queryAt === -1 ? target : target.slice(0, queryAt),
        rawQuery: queryAt === -1 ? '' : target.slice(queryAt + 1),
        query: new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1)),
        headers: incoming.headers,
        rawBody,
        body,
      };
      requests.push(request);
      Promise.resolve()
        .then(() => handle(request))
        .then(
          (answer) => {
            const text = answer.status === 204 || answer.body === undefined ? '' : JSON.stringify(answer.body);
            response.writeHead(answer.status, { ...(text === '' ? {} : { 'content-type': 'application/json' }), ...answer.headers }).end(text);
          },
          (error: unknown) => response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ mockError: String(error) })),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A recorded exchange under test/fixtures, parsed afresh (callers may change their copy). */
export function fixture<T extends object = Record<string, unknown>>(relativePath: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/${relativePath}`, import.meta.url), 'utf8')) as T;
}
