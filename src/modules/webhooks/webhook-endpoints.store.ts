import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { invalid } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../infrastructure/database/schema.js';
import { WEBHOOK_DELIVERY_CHANNEL } from './webhook-deliveries.reaction.js';
import type { WebhookSecrets } from './webhook-secrets.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface EndpointChanges {
  readonly url?: string;
  readonly eventTypes?: readonly string[];
  readonly description?: string | null;
  readonly disabled?: boolean;
}

export async function createEndpoint(
  db: Kysely<Database>,
  endpoint: { userId: string; url: string; eventTypes: readonly string[]; description: string | null; secret: string; now: Date },
  secrets: WebhookSecrets,
): Promise<WebhookEndpointRow> {
  const id = newId();
  return db
    .insertInto('webhook_endpoints')
    .values({ id, user_id: endpoint.userId, url: endpoint.url, event_types: [...endpoint.eventTypes], description: endpoint.description, sealed_secret: secrets.seal(endpoint.secret, id), created_at: endpoint.now, updated_at: endpoint.now, disabled_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listEndpoints(db: Kysely<Database>, userId: string): Promise<WebhookEndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
}

export function findEndpoint(db: Kysely<Database>, userId: string, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).where('id', '=', endpointId).executeTakeFirst();
}

export async function updateEndpoint(db: Kysely<Database>, userId: string, endpointId: string, changes: EndpointChanges, now: Date): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      updated_at: now,
      ...(changes.url !== undefined && { url: changes.url }),
      ...(changes.eventTypes !== undefined && { event_types: [...changes.eventTypes] }),
      ...(changes.description !== undefined && { description: changes.description }),
      // Disabling again keeps the first time; enabling clears it.
      ...(changes.disabled !== undefined && { disabled_at: changes.disabled ? sql<Date>`coalesce(disabled_at, ${now})` : null }),
    })
    .where('user_id', '=', userId)
    .where('id', '=', endpointId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the endpoint and its delivery log (pending deliveries with it). */
export async function deleteEndpoint(db: Kysely<Database>, userId: string, endpointId: string): Promise<boolean> {
  const deleted = await db.deleteFrom('webhook_endpoints').where('user_id', '=', userId).where('id', '=', endpointId).executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** A `webhook.test` delivery, queued behind the endpoint's others: the request only records it, a sender sends it. */
export async function queueTestDelivery(db: Kysely<Database>, endpoint: WebhookEndpointRow, now: Date): Promise<void> {
  const eventId = newId();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_deliveries')
      .values({
        id: newId(),
        user_id: endpoint.user_id,
        endpoint_id: endpoint.id,
        event_id: eventId,
        event_type: 'webhook.test',
        occurred_at: now,
        data: JSON.stringify({ endpointId: endpoint.id, message: 'A test event from Ledgerline' }),
        render_from: null,
      })
      .execute();
    await sql`SELECT pg_notify(${WEBHOOK_DELIVERY_CHANNEL}, '')`.execute(trx);
  });
}

/** One page of an endpoint's delivery log, newest first; `cursor`: the previous page's nextCursor. */
export async function listDeliveries(db: Kysely<Database>, endpointId: string, limit: number, cursor: string | undefined) {
  const after = cursor === undefined ? null : decodeDeliveryCursor(cursor);
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (after !== null) query = query.where('seq', '<', after);
  const rows = await query.orderBy('seq', 'desc').limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { rows: page, hasMore, nextCursor: hasMore ? encodeDeliveryCursor(String((page[page.length - 1] as WebhookDeliveryRow).seq)) : null };
}

function encodeDeliveryCursor(seq: string): string {
  return Buffer.from(JSON.stringify({ v: 1, s: seq })).toString('base64url');
}

function decodeDeliveryCursor(text: string): string {
  const mangled = () => invalid(['cursor'], 'cursor is not one this list issued', 'invalid_string');
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw mangled();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw mangled();
  }
  const { v, s } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { v?: unknown; s?: unknown };
  if (v !== 1 || typeof s !== 'string' || !/^[1-9][0-9]{0,17}$/.test(s)) throw mangled();
  return s;
}
