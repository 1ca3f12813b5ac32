import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { BANK_LINK_WEBHOOK_CODES, type BankLinkWebhookCode } from '../bank-link.port.js';

export class FireSandboxWebhookRequest {
  @ApiProperty({ enum: BANK_LINK_WEBHOOK_CODES, example: 'ITEM_LOGIN_REQUIRED', description: 'The webhook the sandbox provider sends for the item.' })
  @IsIn(BANK_LINK_WEBHOOK_CODES)
  code!: BankLinkWebhookCode;
}

export class SandboxWebhookFiredResponse {
  @ApiProperty({ description: 'The webhook was delivered and its effect is visible to reads (a sync, for SYNC_UPDATES_AVAILABLE, is queued).' })
  success!: boolean;
}
