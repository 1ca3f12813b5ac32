import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES } from '../webhook-event-types.js';

export class WebhookEndpointResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'https://example.com/ledgerline/webhooks' }) url!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }, description: 'Empty: every type.' }) eventTypes!: string[];
  @ApiProperty({ type: 'string', nullable: true }) description!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Set while the endpoint is disabled' }) disabledAt!: string | null;
}

export class CreatedWebhookEndpointResponse extends WebhookEndpointResponse {
  @ApiProperty({ pattern: '^whsec_[0-9A-Za-z]{32}$', description: 'Signs every delivery (Ledgerline-Signature): shown this once.' }) secret!: string;
}

export class WebhookEndpointListResponse {
  @ApiProperty({ type: [WebhookEndpointResponse] }) endpoints!: WebhookEndpointResponse[];
}

export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The `id` of the webhook body and the Ledgerline-Event-Id header: the same on every attempt.' }) eventId!: string;
  @ApiProperty({ enum: [...WEBHOOK_EVENT_TYPES] }) eventType!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) attempts!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status of the last attempt; null when none came back' }) lastStatusCode!: number | null;
  @ApiProperty({ type: 'string', nullable: true }) lastError!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When a pending delivery is tried next' }) nextAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) deliveredAt!: string | null;
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: [WebhookDeliveryResponse] }) deliveries!: WebhookDeliveryResponse[];
  @ApiProperty() hasMore!: boolean;
  @ApiProperty({ type: 'string', nullable: true }) nextCursor!: string | null;
}

export class WebhookTestAcceptedResponse {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ example: 'Test event queued' }) message!: string;
}
