import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Kysely } from 'kysely';
import type { AppConfig } from '../../../config/config.js';
import type { Clock } from '../../../core/clock.js';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { UuidParam } from '../../../infrastructure/http/request-helpers.js';
import { CLOCK, CONFIG, DATABASE } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { refusalOf } from '../webhook-address.js';
import { createEndpoint, deleteEndpoint, findEndpoint, listDeliveries, listEndpoints, queueTestDelivery, updateEndpoint, type WebhookDeliveryRow, type WebhookEndpointRow } from '../webhook-endpoints.store.js';
import { WEBHOOK_SECRETS, type WebhookSecrets } from '../webhook-secrets.js';
import { generateWebhookSecret } from '../webhook-signature.js';
import { CreateWebhookEndpointRequest, PatchWebhookEndpointRequest, WebhookDeliveryListQuery } from './webhook.requests.js';
import { CreatedWebhookEndpointResponse, WebhookDeliveryListResponse, type WebhookDeliveryResponse, WebhookEndpointListResponse, WebhookEndpointResponse, WebhookTestAcceptedResponse } from './webhook.responses.js';

const DELIVERY_DESCRIPTION =
  'Deliveries are `POST <url>` with body `{id, type, createdAt, data}` and headers `Ledgerline-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>`), ' +
  '`Ledgerline-Event-Id` and `Ledgerline-Delivery-Attempt`. Any 2xx within 10 s is success; otherwise retried with exponential backoff (30 s, doubling, at most 8 attempts), then `failed`. ' +
  'At least once (the same `id` on every attempt), and per endpoint in the order your events happened.';

@ApiTags('Webhooks')
@ApiBearerAuth('bearerAuth')
@Controller('webhooks/endpoints')
export class WebhooksHttpController {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_SECRETS) private readonly secrets: WebhookSecrets,
  ) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'createWebhookEndpoint', summary: 'Add an endpoint of yours that receives your events; its signing secret is in this answer and never again', description: DELIVERY_DESCRIPTION })
  @ApiCreatedResponse({ type: CreatedWebhookEndpointResponse })
  @ApiErrors(400, 401, 403, 422)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateWebhookEndpointRequest): Promise<CreatedWebhookEndpointResponse> {
    await this.requireAllowedUrl(body.url);
    const secret = generateWebhookSecret();
    const row = await createEndpoint(this.db, { userId: principal.user.id, url: body.url, eventTypes: body.eventTypes ?? [], description: body.description ?? null, secret, now: this.clock.now() }, this.secrets);
    return { ...endpointOf(row), secret };
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: 'Your webhook endpoints, without their secrets' })
  @ApiOkResponse({ type: WebhookEndpointListResponse })
  @ApiErrors(401, 403)
  async list(@CurrentPrincipal() principal: Principal): Promise<WebhookEndpointListResponse> {
    return { endpoints: (await listEndpoints(this.db, principal.user.id)).map(endpointOf) };
  }

  @Patch(':endpointId')
  @ApiOperation({ operationId: 'updateWebhookEndpoint', summary: "Change an endpoint's URL, event types or description, or disable and enable it" })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiErrors(400, 401, 403, 404, 422)
  async patch(@CurrentPrincipal() principal: Principal, @UuidParam('endpointId', 'Webhook endpoint') endpointId: string, @Body() body: PatchWebhookEndpointRequest): Promise<WebhookEndpointResponse> {
    if (!(await findEndpoint(this.db, principal.user.id, endpointId))) throw new NotFoundError('Webhook endpoint');
    if (body.url !== undefined) await this.requireAllowedUrl(body.url);
    const row = await updateEndpoint(this.db, principal.user.id, endpointId, body, this.clock.now());
    if (!row) throw new NotFoundError('Webhook endpoint');
    return endpointOf(row);
  }

  @Delete(':endpointId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteWebhookEndpoint', summary: 'Delete an endpoint with its delivery log; pending deliveries are not sent' })
  @ApiNoContentResponse({ description: 'Deleted; no body' })
  @ApiErrors(401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @UuidParam('endpointId', 'Webhook endpoint') endpointId: string): Promise<void> {
    if (!(await deleteEndpoint(this.db, principal.user.id, endpointId))) throw new NotFoundError('Webhook endpoint');
  }

  @Post(':endpointId/test')
  @HttpCode(202)
  @ApiOperation({ operationId: 'testWebhookEndpoint', summary: 'Queue a `webhook.test` delivery to this endpoint, behind its other deliveries' })
  @ApiAcceptedResponse({ type: WebhookTestAcceptedResponse })
  @ApiErrors(400, 401, 403, 404, 413)
  async test(@CurrentPrincipal() principal: Principal, @UuidParam('endpointId', 'Webhook endpoint') endpointId: string): Promise<WebhookTestAcceptedResponse> {
    const endpoint = await findEndpoint(this.db, principal.user.id, endpointId);
    if (!endpoint) throw new NotFoundError('Webhook endpoint');
    await queueTestDelivery(this.db, endpoint, this.clock.now());
    return { success: true, message: 'Test event queued' };
  }

  @Get(':endpointId/deliveries')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: "An endpoint's delivery log, newest first: each delivery's status, attempts and last error" })
  @ApiOkResponse({ type: WebhookDeliveryListResponse })
  @ApiErrors(401, 403, 404, 422)
  async deliveries(@CurrentPrincipal() principal: Principal, @UuidParam('endpointId', 'Webhook endpoint') endpointId: string, @Query() query: WebhookDeliveryListQuery): Promise<WebhookDeliveryListResponse> {
    if (!(await findEndpoint(this.db, principal.user.id, endpointId))) throw new NotFoundError('Webhook endpoint');
    const page = await listDeliveries(this.db, endpointId, query.limit ?? 50, query.cursor);
    return { deliveries: page.rows.map(deliveryOf), hasMore: page.hasMore, nextCursor: page.nextCursor };
  }

  private async requireAllowedUrl(url: string): Promise<void> {
    const refusal = await refusalOf(url, this.config.webhookAllowPrivateUrls);
    if (refusal === 'scheme') throw new DomainRuleError('WEBHOOK_URL_NOT_ALLOWED', 'A webhook URL must be an http or https URL.');
    if (refusal === 'private') throw new DomainRuleError('WEBHOOK_URL_NOT_ALLOWED', 'This webhook URL resolves to a loopback, private or link-local address; use a public one.');
  }
}

function endpointOf(row: WebhookEndpointRow): WebhookEndpointResponse {
  return { id: row.id, url: row.url, eventTypes: row.event_types, description: row.description, createdAt: row.created_at.toISOString(), disabledAt: row.disabled_at?.toISOString() ?? null };
}

function deliveryOf(row: WebhookDeliveryRow): WebhookDeliveryResponse {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}
