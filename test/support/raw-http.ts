import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawRequest {
  readonly method: string;
  /** Path and query exactly as they go on the wire (already percent-encoded). */
  readonly target: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

export interface RawResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: unknown;
  readonly text: string;
  readonly milliseconds: number;
}

const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(`the reused keep-alive socket was closed before an answer: ${cause.message}`);
  }
}

/**
 * Sends requests byte for byte as written (supertest and fetch normalise paths, refuse some
 * bodies on GET and encode for you), over a keep-alive pool to a server listening on a port.
 */
export class RawHttpClient {
  /**
   * With a timeout of its own, Node's Agent also honours the server's `Keep-Alive: timeout=5` and lets
   * an idle socket go a second before the server would close it; without one it keeps sockets forever.
   */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 30_000 });

  private constructor(private readonly port: number) {}

  static async listen(server: Server): Promise<RawHttpClient> {
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new RawHttpClient((server.address() as AddressInfo).port);
  }

  /**
   * A keep-alive socket the server closed while this request was handed to it fails before any
   * answer (ECONNRESET, EPIPE, "socket hang up"); like Node's documented `reusedSocket` retry and
   * undici, such a request is sent once more on a new connection: the server never read it.
   */
  async send(raw: RawRequest): Promise<RawResponse> {
    try {
      return await this.sendOnce(raw);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return this.sendOnce(raw);
    }
  }

  private sendOnce(raw: RawRequest): Promise<RawResponse> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const body = raw.body === undefined ? undefined : Buffer.isBuffer(raw.body) ? raw.body : Buffer.from(raw.body, 'utf8');
      const headers: Record<string, string | number> = { ...raw.headers };
      if (body !== undefined) headers['Content-Length'] = body.length;
      let answered = false;
      const outgoing = httpRequest({ host: '127.0.0.1', port: this.port, method: raw.method, path: raw.target, headers, agent: this.agent }, (incoming) => {
        answered = true;
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = incoming.headers['content-type'];
          let parsed: unknown = text;
          if (contentType?.startsWith('application/json') && text.length > 0) {
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = text;
            }
          }
          resolve({ status: incoming.statusCode ?? 0, contentType, body: parsed, text, milliseconds: performance.now() - started });
        });
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const closedBeforeAnswer = outgoing.reusedSocket && !answered && STALE_SOCKET_CODES.has(error.code ?? '');
        reject(closedBeforeAnswer ? new StaleSocketError(error) : error);
      });
      outgoing.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `work` over `items` with at most `limit` in flight, keeping results in order. */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
