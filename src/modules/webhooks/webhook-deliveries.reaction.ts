import { sql } from 'kysely';
import { formatPosition, type RecordedEvent } from '../../core/events.js';
import { nameBasedId } from '../../core/ids.js';
import { appliedInlineTo, type ProjectionDefinition } from '../../infrastructure/projections/projection.js';
import { readModelOf, renderWebhookData } from './webhook-data.js';
import { subscribesTo, WEBHOOK_SOURCE_EVENT_TYPES, type WebhookEvent, webhookEventOf } from './webhook-event-types.js';

const DELIVERY_ID_NAMESPACE = '6f1d8c52-3b7a-4e0a-9c55-2f4b8a9d7e31';
export const WEBHOOK_DELIVERY_CHANNEL = 'ledgerline_webhook_deliveries';

/** A delivery's id is a function of (event, endpoint): a batch applied again inserts nothing twice. */
export function deliveryIdOf(eventId: string, endpointId: string): string {
  return nameBasedId(DELIVERY_ID_NAMESPACE, `${eventId}/${endpointId}`);
}

/** Where a delivery's `data` will be rendered from at send time, once that read model has passed the event. */
export interface DeferredRender {
  readonly readModel: string;
  readonly position: string;
  readonly resource: WebhookEvent['resource'];
}

/**
 * The user's events become deliveries to each of their enabled endpoints subscribed to the
 * event's webhook type, in the transaction that moves this reaction's checkpoint past them
 * (decisions 0038, 0039): in feed order, so `seq` orders each endpoint's queue as the user's events
 * happened. The senders are woken by a notification sent when it commits.
 */
export const webhookDeliveriesReaction: ProjectionDefinition = {
  name: 'webhook-deliveries',
  version: 1,
  kind: 'reaction',
  tables: [],
  eventTypes: WEBHOOK_SOURCE_EVENT_TYPES,
  async createTables() {
    // Its rows are deliveries, in the webhook_deliveries table (migration 0029).
  },
  async apply(trx, events) {
    const webhooks = events.map((event) => ({ event, webhook: webhookEventOf(event) })).filter((entry): entry is { event: RecordedEvent; webhook: WebhookEvent } => entry.webhook !== null);
    if (webhooks.length === 0) return;
    const userIds = [...new Set(webhooks.map(({ event }) => event.metadata.userId))];
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'user_id', 'event_types'])
      .where('user_id', 'in', userIds)
      .where('disabled_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    if (endpoints.length === 0) return;
    const rows = [];
    for (const { event, webhook } of webhooks) {
      const subscribed = endpoints.filter((endpoint) => endpoint.user_id === event.metadata.userId && subscribesTo(endpoint.event_types, webhook.type));
      if (subscribed.length === 0) continue;
      // Applied inline (the PostgreSQL store, once the read model is live), its read model shows the
      // event already; otherwise the daemon applies it beside this reaction, and the sender renders
      // `data` once that read model has passed the event.
      const readModel = readModelOf(webhook.resource);
      const current = appliedInlineTo(event, readModel);
      const renderFrom: DeferredRender | null = current ? null : { readModel: readModel.name, position: formatPosition(event.position), resource: webhook.resource };
      const data = current ? await renderWebhookData(trx, event.metadata.userId, webhook.resource) : null;
      for (const endpoint of subscribed) {
        rows.push({
          id: deliveryIdOf(event.id, endpoint.id),
          user_id: event.metadata.userId,
          endpoint_id: endpoint.id,
          event_id: event.id,
          event_type: webhook.type,
          occurred_at: new Date(event.metadata.occurredAt),
          data: data === null ? null : JSON.stringify(data),
          render_from: renderFrom === null ? null : JSON.stringify(renderFrom),
        });
      }
    }
    if (rows.length === 0) return;
    await trx.insertInto('webhook_deliveries').values(rows).onConflict((conflict) => conflict.column('id').doNothing()).execute();
    await sql`SELECT pg_notify(${WEBHOOK_DELIVERY_CHANNEL}, '')`.execute(trx);
  },
};
