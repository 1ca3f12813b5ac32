import { Controller, HttpCode, Post, type RawBodyRequest, Req, UnsupportedMediaTypeException } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { DomainRuleError } from '../../../core/errors.js';
import { Public } from '../../../infrastructure/http/api-key.guard.js';
import { UnauthorizedError } from '../../../infrastructure/http/http-error.filter.js';
import { FlatErrorBody, NestedErrorBody } from '../../../infrastructure/http/openapi-errors.js';
import { carriesJsonBody, MAX_BODY_TEXT, MAX_JSON_DEPTH } from '../../../infrastructure/http/request-body-limits.js';
import type { RequestWithContext } from '../../../infrastructure/http/request-context.hooks.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import { BankLinkWebhookBody } from './bank-link-webhook.body.js';
import { WEBHOOK_CODE_MAX_LENGTH, WEBHOOK_ERROR_CODE_MAX_LENGTH, WEBHOOK_ERROR_MESSAGE_MAX_LENGTH } from './bank-link-webhook.limits.js';
import { BankLinkWebhookReceiver, type WebhookReceipt } from './bank-link-webhook.receiver.js';

const MESSAGES: Record<Exclude<WebhookReceipt['outcome'], 'rejected' | 'malformed'>, string> = {
  applied: 'Webhook received',
  duplicate: 'Webhook already received: nothing done again',
  ignored: 'Webhook received and ignored',
};

const flat = { $ref: getSchemaPath(FlatErrorBody) };

/**
 * The provider's webhook: no user credential, the provider's signature over the raw body instead.
 * Anything correctly signed is answered 200 — even a code, item or body it cannot act on — because
 * a provider retries any other status, and retrying cannot make such a webhook usable.
 */
@ApiTags('Webhooks')
@ApiExtraModels(FlatErrorBody, NestedErrorBody)
@Controller()
export class BankLinkWebhooksHttpController {
  constructor(private readonly receiver: BankLinkWebhookReceiver) {}

  @Post('webhooks/bank-link')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'receiveBankLinkWebhook',
    summary: 'The bank-link provider’s webhook: verified by the provider’s signature, deduplicated by its id, applied to the item it names',
    description:
      'Sent by the provider, not by users: authenticated by the provider’s signature over the raw body — the sandbox’s `Ledgerline-Sandbox-Signature: t=<unix seconds>,v1=<HMAC-SHA256 hex of "<t>.<body>">`, ' +
      'Plaid’s `Plaid-Verification` JWT (ES256, its key fetched from Plaid by `kid` and cached, naming the SHA-256 of the body) — made at most 5 minutes before or after the service’s clock. ' +
      'Codes → state: SYNC_UPDATES_AVAILABLE queues a sync; ITEM_LOGIN_REQUIRED (Plaid: an ERROR whose error_code is ITEM_LOGIN_REQUIRED) and ERROR (Plaid: also USER_PERMISSION_REVOKED) set needsReauth; ' +
      'LOGIN_REPAIRED clears it; PENDING_DISCONNECT sets pendingDisconnectAt to disconnect_at (Plaid: disconnect_time), PENDING_EXPIRATION to consent_expiration_time; NEW_ACCOUNTS_AVAILABLE sets ' +
      'newAccountsAvailable. A delivery already received (the sandbox’s webhook_id; Plaid’s, which has none, by the digest of its JWT) answers 200 and changes nothing. A correctly signed webhook for an ' +
      'unknown or disconnected item, with an unknown code, or without what its code needs answers 200 and changes nothing (logged).',
    security: [],
  })
  @ApiBody({ type: BankLinkWebhookBody })
  @ApiOkResponse({ type: SuccessResponse, description: 'Received: applied, already received, or ignored (the message says which)' })
  @ApiResponse({
    status: 400,
    description:
      `BAD_REQUEST: the body is not valid JSON or nests deeper than ${MAX_JSON_DEPTH} levels (refused at the edge, before the signature is checked); or, correctly signed, ` +
      `a string anywhere in it holds NUL (U+0000) or a lone UTF-16 surrogate, or webhook_code is longer than ${WEBHOOK_CODE_MAX_LENGTH} characters, error.error_code than ` +
      `${WEBHOOK_ERROR_CODE_MAX_LENGTH} or error.error_message than ${WEBHOOK_ERROR_MESSAGE_MAX_LENGTH}. Nothing is done or recorded.`,
    schema: flat,
  })
  @ApiResponse({ status: 401, description: 'The signature is missing, wrong, or made more than 5 minutes from the service’s clock (UNAUTHORIZED); nothing changed', schema: { $ref: getSchemaPath(NestedErrorBody) } })
  @ApiResponse({ status: 413, description: `The body is larger than ${MAX_BODY_TEXT} (PAYLOAD_TOO_LARGE)`, schema: flat })
  @ApiResponse({ status: 415, description: 'The body is not application/json in UTF-8 (UNSUPPORTED_MEDIA_TYPE)', schema: flat })
  @ApiResponse({ status: 500, description: 'Unexpected error (logged with the request id); the provider retries', schema: { $ref: getSchemaPath(NestedErrorBody) } })
  async receive(@Req() request: RawBodyRequest<RequestWithContext>): Promise<SuccessResponse> {
    // Only a JSON body is read, and kept as bytes (within the edge's 1 MB, depth and charset limits).
    if (!carriesJsonBody(request)) throw new UnsupportedMediaTypeException('A webhook body is JSON: send it as application/json.');
    const rawBody = request.rawBody?.toString('utf8') ?? '';
    const receipt = await this.receiver.receive(rawBody, request.headers, request.id);
    if (receipt.outcome === 'rejected') throw new UnauthorizedError();
    if (receipt.outcome === 'malformed') throw new DomainRuleError('BAD_REQUEST', receipt.problem);
    return { success: true, message: MESSAGES[receipt.outcome] };
  }
}
