import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { RequestId } from '../../../infrastructure/http/request-helpers.js';
import type { Principal } from '../../identity/identity.store.js';
import { BankLinkError } from '../bank-link.port.js';
import { BANK_LINK, type BankLink } from '../bank-link.wiring.js';
import { FireSandboxWebhookRequest, SandboxWebhookFiredResponse } from '../webhooks/sandbox-webhook.dto.js';
import { SandboxWebhookFiring } from '../webhooks/sandbox-webhook.firing.js';
import { LinkItemIdParam } from './link-item-id.param.js';
import { CreateSandboxPublicTokenRequest } from './link.requests.js';
import { SandboxPublicTokenResponse } from './link.responses.js';

/** Like a provider's own sandbox: served only while the sandbox is the configured provider (else 404). */
@ApiTags('Sandbox')
@ApiBearerAuth('bearerAuth')
@Controller()
export class SandboxHttpController {
  constructor(
    @Inject(BANK_LINK) private readonly bankLink: BankLink,
    private readonly webhooks: SandboxWebhookFiring,
  ) {}

  @Post('sandbox/public-token')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createSandboxPublicToken',
    summary: 'Stand in for a user completing the link flow at a sandbox institution: a public token to exchange with POST /link/items',
    description:
      'With a linkToken issued for a reconnect (POST /link/token {reconnectLinkItemId}), the user completes the flow in update mode: the public token is for that ' +
      'existing item, and its exchange re-authenticates it (a new access token, login required or a pending disconnect over) and adds the account the bank opened ' +
      'since NEW_ACCOUNTS_AVAILABLE. The public token is yours: only you can exchange it. 400 INSTITUTION_NOT_FOUND: an institution other than ins_100001 to ins_100005; ' +
      '400 INVALID_LINK_TOKEN: a linkToken unknown, expired, issued to another user, or whose item has been removed since.',
  })
  @ApiOkResponse({ type: SandboxPublicTokenResponse })
  @ApiErrors(400, 401, 403, 404, 422)
  async createPublicToken(@CurrentPrincipal() principal: Principal, @Body() body: CreateSandboxPublicTokenRequest): Promise<SandboxPublicTokenResponse> {
    const sandbox = this.bankLink.sandbox;
    if (!sandbox) throw new NotFoundError('Sandbox operation');
    try {
      // null is absent, as for every optional field (the bad-input sweep sends both).
      return { publicToken: await sandbox.createPublicToken({ userId: principal.user.id, institutionId: body.institutionId ?? undefined, linkToken: body.linkToken ?? undefined }) };
    } catch (error) {
      if (error instanceof BankLinkError && error.code === 'INSTITUTION_NOT_FOUND') {
        throw new DomainRuleError('INSTITUTION_NOT_FOUND', `No sandbox institution ${body.institutionId ?? ''}: use ins_100001 to ins_100005.`);
      }
      if (error instanceof BankLinkError && error.code === 'INVALID_LINK_TOKEN') {
        throw new DomainRuleError('INVALID_LINK_TOKEN', 'The link token is unknown, expired, not yours, or its item has been removed: ask POST /link/token for another.');
      }
      throw error;
    }
  }

  @Post('sandbox/link/items/:linkItemId/fire-webhook')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'fireSandboxWebhook',
    summary: 'Have the sandbox provider send one of its webhooks for one of your items; answers once the item’s new state is readable',
    description:
      'Delivered through the same verification, deduplication and mapping as POST /webhooks/bank-link. SYNC_UPDATES_AVAILABLE queues a sync; ' +
      'the other codes change the item as that operation describes (the sandbox’s own item status changes too: after ITEM_LOGIN_REQUIRED its syncs need a login, until LOGIN_REPAIRED).',
  })
  @ApiParam({ name: 'linkItemId', description: 'The provider’s item id (the link item’s linkItemId).', schema: { type: 'string', maxLength: 200 } })
  @ApiOkResponse({ type: SandboxWebhookFiredResponse })
  @ApiErrors(400, 401, 403, 404, 422, 503)
  async fireWebhook(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @LinkItemIdParam() linkItemId: string,
    @Body() body: FireSandboxWebhookRequest,
  ): Promise<SandboxWebhookFiredResponse> {
    await this.webhooks.fire({ userId: principal.user.id, requestId, linkItemId, code: body.code });
    return { success: true };
  }
}
