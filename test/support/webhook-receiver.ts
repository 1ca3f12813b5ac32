import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  readonly id: string;
  readonly type: string;
  readonly createdAt: string;
  readonly data: Record<string, unknown>;
  readonly rawBody: string;
  readonly headers: IncomingHttpHeaders;
  readonly attempt: number;
  readonly path: string;
  readonly receivedAt: number;
}

/**
 * The README's verification helper, word for word: the signature is an HMAC-SHA256 of
 * "<t>.<raw body>" under the endpoint's secret, compared in constant time, and `t` must be recent.
 */
export function verifyLedgerlineSignature(secret: string, rawBody: string, header: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A local endpoint (node:http on 127.0.0.1) that records every webhook it is sent and answers
 * what `answer` says: a status, or a promise it holds the request open on.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  answer: (webhook: ReceivedWebhook) => number | Promise<number> = () => 200;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | null = null;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(rawBody) as { id: string; type: string; createdAt: string; data: Record<string, unknown> };
        const webhook: ReceivedWebhook = { ...body, rawBody, headers: request.headers, attempt: Number(request.headers['ledgerline-delivery-attempt']), path: request.url ?? '/', receivedAt: Date.now() };
        (receiver as WebhookReceiver).record(webhook);
        void Promise.resolve((receiver as WebhookReceiver).answer(webhook)).then(
          (status) => response.writeHead(status).end(),
          () => response.destroy(),
        );
      });
    });
    receiver = new WebhookReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Waits until `predicate` holds of what was received. */
  async until(predicate: (received: readonly ReceivedWebhook[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`webhooks not received in ${timeoutMs} ms; got ${this.received.map((webhook) => `${webhook.type}#${webhook.attempt}`).join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  on(path: string): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private record(webhook: ReceivedWebhook): void {
    this.received.push(webhook);
    for (const wake of [...this.waiters]) wake();
    this.waiters.clear();
  }
}
