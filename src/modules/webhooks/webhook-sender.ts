import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { AppConfig } from '../../config/config.js';
import { parsePosition } from '../../core/events.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { AppendSignal } from '../../infrastructure/event-store/append-signal.js';
import type { CheckpointWatch } from '../../infrastructure/projections/checkpoint-watch.js';
import type pg from 'pg';
import { refusalOf } from './webhook-address.js';
import { type DeferredRender, WEBHOOK_DELIVERY_CHANNEL } from './webhook-deliveries.reaction.js';
import { renderWebhookData } from './webhook-data.js';
import { outcomeAfterAttempt } from './webhook-retry.js';
import { WebhookSecrets } from './webhook-secrets.js';
import { webhookSignature } from './webhook-signature.js';

/** A missed notification costs at most this long. */
const POLL_MS = 500;
/** While a delivery waits for its read model to catch up, it is looked at again this soon. */
const RENDER_POLL_MS = 50;
/** A delivery waiting for an async read model that never gets there is sent with what it shows after this long. */
const RENDER_PATIENCE_MS = 60_000;
const MAX_ERROR_LENGTH = 500;

interface ClaimedDelivery {
  id: string;
  user_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  occurred_at: Date;
  created_at: Date;
  data: unknown;
  render_from: DeferredRender | null;
  attempts: number;
  url: string;
  sealed_secret: Buffer;
}

export interface WebhookSenderDependencies {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  readonly watch: CheckpointWatch;
  readonly config: Pick<AppConfig, 'webhookAllowPrivateUrls' | 'webhookRetryBaseMs' | 'webhookTimeoutMs' | 'webhookConcurrency' | 'linkTokenKey' | 'dataDir'>;
  readonly log: Logger;
}

/**
 * Sends webhook deliveries from their table, the durable queue (decision 0039). Only the head
 * pending delivery of an endpoint can be claimed, so each endpoint receives the user's events in
 * order; a claim is a lease (`claimed_until`): a process killed mid-send leaves it to lapse, and
 * the delivery is sent again with the same id. Up to `webhookConcurrency` endpoints are in flight
 * at once, one delivery each: a slow or dead endpoint holds its own queue, no one else's.
 */
export class WebhookSender {
  private readonly signal: AppendSignal;
  private readonly inFlight = new Map<string, { done: Promise<void>; abort: AbortController }>();
  private loop: Promise<void> | null = null;
  private stopped = false;
  private awaitingReadModel = false;
  private readonly secrets: Promise<WebhookSecrets>;

  constructor(private readonly deps: WebhookSenderDependencies) {
    this.signal = new AppendSignal(deps.pool, WEBHOOK_DELIVERY_CHANNEL);
    this.secrets = WebhookSecrets.load(deps.config);
    // Awaited before every signature; a key that cannot be read fails each attempt, logged there.
    this.secrets.catch(() => undefined);
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.signal.wake();
    for (const { abort } of this.inFlight.values()) abort.abort();
    await this.loop;
    await Promise.all([...this.inFlight.values()].map(({ done }) => done));
    await this.signal.close();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.claimAndSend();
      } catch (error) {
        this.deps.log.warn({ err: error }, 'webhook sender: claiming deliveries failed; trying again');
      }
      if (!this.stopped) await this.signal.next(this.awaitingReadModel ? RENDER_POLL_MS : POLL_MS);
    }
  }

  private async claimAndSend(): Promise<void> {
    this.awaitingReadModel = false;
    const room = this.deps.config.webhookConcurrency - this.inFlight.size;
    if (room <= 0) return;
    const leaseMs = this.deps.config.webhookTimeoutMs + 5_000;
    const busy = [...this.inFlight.keys()];
    const { rows } = await sql<ClaimedDelivery>`
      WITH due AS (
        SELECT head.id FROM (
          SELECT DISTINCT ON (q.endpoint_id) q.id, q.next_attempt_at, q.claimed_until
            FROM webhook_deliveries q
            JOIN webhook_endpoints e ON e.id = q.endpoint_id AND e.disabled_at IS NULL
           WHERE q.status = 'pending' AND NOT (q.endpoint_id = ANY(${busy}::uuid[]))
           ORDER BY q.endpoint_id, q.seq
        ) head
        WHERE head.next_attempt_at <= now() AND (head.claimed_until IS NULL OR head.claimed_until < now())
        LIMIT ${room}
      )
      UPDATE webhook_deliveries d SET claimed_until = now() + ${leaseMs} * interval '1 millisecond'
        FROM due, webhook_endpoints e
       WHERE d.id = due.id AND e.id = d.endpoint_id AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
      RETURNING d.id, d.user_id, d.endpoint_id, d.event_id, d.event_type, d.occurred_at, d.created_at, d.data, d.render_from, d.attempts, e.url, e.sealed_secret`.execute(this.deps.db);
    for (const delivery of rows) {
      const abort = new AbortController();
      const done = this.drain(delivery, abort.signal)
        .catch((error: unknown) => this.deps.log.warn({ err: error, deliveryId: delivery.id }, 'webhook delivery could not be recorded; its claim will lapse'))
        .finally(() => {
          this.inFlight.delete(delivery.endpoint_id);
          this.signal.wake();
        });
      this.inFlight.set(delivery.endpoint_id, { done, abort });
    }
  }

  /**
   * Sends an endpoint's deliveries one after the other while they succeed or fail for good, each
   * next one claimed by the endpoint's own queue index: a backlog drains without going back to the
   * scan for due endpoints between deliveries.
   */
  private async drain(first: ClaimedDelivery, stopping: AbortSignal): Promise<void> {
    let delivery: ClaimedDelivery | undefined = first;
    while (delivery !== undefined && (await this.deliver(delivery, stopping)) && !this.stopped) {
      delivery = await this.claimNext(delivery.endpoint_id);
    }
  }

  /** The endpoint's head delivery, claimed, when it is due and nobody holds it. */
  private async claimNext(endpointId: string): Promise<ClaimedDelivery | undefined> {
    const leaseMs = this.deps.config.webhookTimeoutMs + 5_000;
    const { rows } = await sql<ClaimedDelivery>`
      UPDATE webhook_deliveries d SET claimed_until = now() + ${leaseMs} * interval '1 millisecond'
        FROM webhook_endpoints e
       WHERE d.id = (SELECT q.id FROM webhook_deliveries q WHERE q.endpoint_id = ${endpointId} AND q.status = 'pending' ORDER BY q.seq LIMIT 1)
         AND e.id = d.endpoint_id AND e.disabled_at IS NULL AND d.next_attempt_at <= now() AND (d.claimed_until IS NULL OR d.claimed_until < now())
      RETURNING d.id, d.user_id, d.endpoint_id, d.event_id, d.event_type, d.occurred_at, d.created_at, d.data, d.render_from, d.attempts, e.url, e.sealed_secret`.execute(this.deps.db);
    return rows[0];
  }

  /** Sends one delivery and records the attempt; true when it is over (succeeded, or failed for good), so the next may go. */
  private async deliver(delivery: ClaimedDelivery, stopping: AbortSignal): Promise<boolean> {
    const data = await this.dataOf(delivery);
    if (data === undefined) {
      this.awaitingReadModel = true;
      await this.release(delivery.id, RENDER_POLL_MS);
      return false;
    }
    const attempt = delivery.attempts + 1;
    const body = JSON.stringify({ id: delivery.event_id, type: delivery.event_type, createdAt: delivery.occurred_at.toISOString(), data });
    const result = await this.post(delivery, body, attempt, stopping);
    if (result === 'stopping') {
      await this.release(delivery.id, 0);
      return false;
    }
    const outcome = outcomeAfterAttempt(attempt, result.ok, this.deps.config.webhookRetryBaseMs);
    await this.deps.db
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt,
        status: outcome.status,
        last_status_code: result.statusCode,
        last_error: result.error,
        claimed_until: null,
        ...(outcome.status === 'pending' ? { next_attempt_at: sql<Date>`now() + ${outcome.retryInMs} * interval '1 millisecond'` } : {}),
        ...(outcome.status === 'succeeded' ? { delivered_at: sql<Date>`now()` } : {}),
      })
      .where('id', '=', delivery.id)
      .execute();
    this.deps.log.debug({ deliveryId: delivery.id, eventId: delivery.event_id, attempt, status: outcome.status, statusCode: result.statusCode }, 'webhook delivery attempted');
    return outcome.status !== 'pending';
  }

  /** The stored `data`, or rendered now from a read model that has passed the event; undefined: not yet. */
  private async dataOf(delivery: ClaimedDelivery): Promise<unknown> {
    if (delivery.data !== null) return delivery.data;
    const render = delivery.render_from;
    if (render === null) return null;
    const waitedTooLong = Date.now() - delivery.created_at.getTime() > RENDER_PATIENCE_MS;
    if (!this.deps.watch.hasReached(parsePosition(render.position), [render.readModel]) && !waitedTooLong) return undefined;
    const data = await renderWebhookData(this.deps.db, delivery.user_id, render.resource);
    // Kept, so every retry sends the same body.
    await this.deps.db.updateTable('webhook_deliveries').set({ data: JSON.stringify(data) }).where('id', '=', delivery.id).execute();
    return data;
  }

  private async post(delivery: ClaimedDelivery, body: string, attempt: number, stopping: AbortSignal): Promise<{ ok: boolean; statusCode: number | null; error: string | null } | 'stopping'> {
    const refusal = await refusalOf(delivery.url, this.deps.config.webhookAllowPrivateUrls);
    if (refusal !== null) return { ok: false, statusCode: null, error: refusal === 'private' ? 'The URL resolves to a loopback, private or link-local address' : 'The URL is not http or https' };
    const timeout = AbortSignal.timeout(this.deps.config.webhookTimeoutMs);
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.any([timeout, stopping]),
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': 'Ledgerline-Webhooks/1',
          'Ledgerline-Signature': webhookSignature((await this.secrets).open(delivery.sealed_secret, delivery.endpoint_id), Math.floor(Date.now() / 1000), body),
          'Ledgerline-Event-Id': delivery.event_id,
          'Ledgerline-Delivery-Attempt': String(attempt),
        },
        body,
      });
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return { ok, statusCode: response.status, error: ok ? null : `HTTP ${response.status}` };
    } catch (error) {
      if (stopping.aborted) return 'stopping';
      const message = timeout.aborted ? `No answer within ${this.deps.config.webhookTimeoutMs} ms` : describe(error);
      return { ok: false, statusCode: null, error: message.slice(0, MAX_ERROR_LENGTH) };
    }
  }

  /** Gives a claim back without counting an attempt. */
  private async release(deliveryId: string, afterMs: number): Promise<void> {
    await this.deps.db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: null, next_attempt_at: sql<Date>`now() + ${afterMs} * interval '1 millisecond'` })
      .where('id', '=', deliveryId)
      .execute();
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
