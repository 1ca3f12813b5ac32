import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BANK_LINK_WEBHOOK_CODES } from '../bank-link.port.js';
import { WEBHOOK_CODE_MAX_LENGTH, WEBHOOK_ERROR_CODE_MAX_LENGTH, WEBHOOK_ERROR_MESSAGE_MAX_LENGTH } from './bank-link-webhook.limits.js';

/** Documentation only: the body is verified as raw bytes and read by the provider adapter, never by the validation pipe. */
class BankLinkWebhookErrorBody {
  @ApiProperty({ maxLength: WEBHOOK_ERROR_CODE_MAX_LENGTH, example: 'ITEM_LOGIN_REQUIRED' }) error_code!: string;
  @ApiPropertyOptional({ maxLength: WEBHOOK_ERROR_MESSAGE_MAX_LENGTH, example: 'the login details of this item have changed' }) error_message?: string;
}

export class BankLinkWebhookBody {
  @ApiPropertyOptional({
    maxLength: 200,
    example: '0b6f6d52-8c9e-4a53-9d55-2f1f1d3b7c40',
    description: 'The sandbox’s id of this notification (required from it); a delivery with an id already received changes nothing. Plaid sends none: its delivery is named by the digest of its Plaid-Verification JWT.',
  })
  webhook_id?: string;

  @ApiProperty({ maxLength: 200, description: 'The provider’s item id (a link item’s linkItemId).' })
  item_id!: string;

  @ApiProperty({
    maxLength: WEBHOOK_CODE_MAX_LENGTH,
    example: 'ITEM_LOGIN_REQUIRED',
    description: `Acted on: ${BANK_LINK_WEBHOOK_CODES.join(', ')} (from Plaid also USER_PERMISSION_REVOKED, as an ERROR). Any other code is acknowledged (200) and ignored.`,
  })
  webhook_code!: string;

  @ApiPropertyOptional({ example: 'ITEM', description: 'TRANSACTIONS for SYNC_UPDATES_AVAILABLE, ITEM for the others.' })
  webhook_type?: string;

  @ApiPropertyOptional({ example: 'sandbox' })
  environment?: string;

  @ApiPropertyOptional({ type: BankLinkWebhookErrorBody, description: 'ITEM_LOGIN_REQUIRED and ERROR: what went wrong (required with them).' })
  error?: BankLinkWebhookErrorBody;

  @ApiPropertyOptional({ format: 'date-time', description: 'PENDING_DISCONNECT from the sandbox (required with it): when the item will be disconnected.' })
  disconnect_at?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'PENDING_DISCONNECT from Plaid (required with it): when the item will be disconnected.' })
  disconnect_time?: string;

  @ApiPropertyOptional({ enum: ['INSTITUTION_MIGRATION', 'INSTITUTION_TOKEN_EXPIRATION'], description: 'PENDING_DISCONNECT: why.' })
  reason?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'PENDING_EXPIRATION (required with it): when the user’s consent expires; becomes pendingDisconnectAt.' })
  consent_expiration_time?: string;

  @ApiPropertyOptional({ description: 'SYNC_UPDATES_AVAILABLE.' })
  initial_update_complete?: boolean;

  @ApiPropertyOptional({ description: 'SYNC_UPDATES_AVAILABLE.' })
  historical_update_complete?: boolean;
}
