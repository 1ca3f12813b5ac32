import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook-event-types.js';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
const URL_DESCRIPTION =
  'An http or https URL. One that resolves to a loopback, private or link-local address (IPv4 or IPv6) is refused: 400 WEBHOOK_URL_NOT_ALLOWED (checked again before every send).';
const EVENT_TYPES_DESCRIPTION = 'The event types sent to this endpoint; omitted or empty: every type. An unknown type is a 422.';
const nullable = () => ValidateIf((_object, value) => value !== null && value !== undefined);
/** Optional, but never null: a PATCH field that cannot be cleared. */
const omittable = () => ValidateIf((_object, value) => value !== undefined);

export class CreateWebhookEndpointRequest {
  @ApiProperty({ minLength: 1, maxLength: WEBHOOK_URL_MAX_LENGTH, example: 'https://example.com/ledgerline/webhooks', description: URL_DESCRIPTION })
  @IsString() @MinLength(1) @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url!: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, default: [], description: EVENT_TYPES_DESCRIPTION })
  @omittable() @IsArray() @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length) @ArrayUnique() @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  eventTypes?: WebhookEventType[];

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH, example: 'Budget spreadsheet sync' })
  @IsOptional() @nullable() @IsString() @MaxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string | null;
}

export class PatchWebhookEndpointRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: WEBHOOK_URL_MAX_LENGTH, description: URL_DESCRIPTION })
  @omittable() @IsString() @MinLength(1) @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, description: EVENT_TYPES_DESCRIPTION })
  @omittable() @IsArray() @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length) @ArrayUnique() @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  eventTypes?: WebhookEventType[];

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH, description: 'null clears it.' })
  @IsOptional() @nullable() @IsString() @MaxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({ description: 'true stops deliveries (pending ones wait, new events are not queued); false resumes them.' })
  @omittable() @IsBoolean()
  disabled?: boolean;
}

export class WebhookDeliveryListQuery {
  @ApiPropertyOptional({ description: "Opaque: the previous page's nextCursor." })
  @IsOptional() @IsString() @MaxLength(1000)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500)
  limit?: number;
}
