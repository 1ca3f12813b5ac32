import { Controller, Get, HttpCode, Inject, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiDefaultResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Clock } from '../../../core/clock.js';
import { CurrentPrincipal, Public } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors, NestedErrorBody } from '../../../infrastructure/http/openapi-errors.js';
import { RequestId, type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { CLOCK, CONFIG } from '../../../infrastructure/runtime/tokens.js';
import type { AppConfig } from '../../../config/config.js';
import type { Principal } from '../../identity/identity.store.js';
import { BrokerageConnectFlows } from '../connect/brokerage-connect.flows.js';
import { BROKERAGE_AUTHORIZATION_ID_PARAM, BrokerageAuthorizationIdParam } from './brokerage-authorization-id.param.js';
import { SandboxBrokeragePortalQuery } from './brokerage-connect.requests.js';
import { SandboxBrokerageDisabledResponse } from './brokerage-connect.responses.js';
import { redirectToPortalReturn } from './portal-return.redirect.js';

/** Like a provider's own sandbox: served only while the sandbox is the configured brokerage-link provider (else 404). */
@ApiTags('Sandbox')
@Controller()
export class SandboxBrokerageHttpController {
  constructor(
    private readonly flows: BrokerageConnectFlows,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('sandbox/brokerage/portal')
  @Public()
  @ApiOperation({
    operationId: 'completeSandboxBrokeragePortal',
    summary: 'The sandbox brokerage’s connection portal, opened by the user’s browser: completes the connection and redirects to the return URL',
    description:
      'The redirectUrl of POST /brokerage/connect while the sandbox is the provider. No credential: the session token is one (single use, valid 5 minutes, ' +
      'issued to the user who asked for it). A plain GET completes the connection at the sandbox (a new authorization at one of its brokerages, with an ' +
      'individual brokerage account and a Roth IRA; or, for a reconnect, the repaired authorization), records it, queues its first sync, and answers 302 to ' +
      'BROKERAGE_RETURN_URL with `brokerageAuthorizationId` and `status=connected`. 400 INVALID_PORTAL_SESSION: the session is unknown, expired or was already used ' +
      '(nothing changes). 409 BROKERAGE_AUTHORIZATION_DISCONNECTED: a reconnect of a connection you have since disconnected (connect anew instead).',
    security: [],
  })
  @ApiResponse({
    status: 302,
    description: 'Back to the return URL: connected',
    headers: {
      Location: { description: 'BROKERAGE_RETURN_URL with brokerageAuthorizationId and status=connected added to its query', schema: { type: 'string', format: 'uri' } },
      'Set-Cookie': {
        description: 'When the return URL is on the service’s own origin (the default, `$PUBLIC_URL/`): `pf_portal_return`, httpOnly, 10 minutes, sealed, so the return page can name the connected accounts to this browser alone',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(400, 404, 409, 422)
  // A redirect is its success: the default response (as the sign-in callback's) keeps the document's lint satisfied.
  @ApiDefaultResponse({ description: 'Unexpected error (logged with the request id)', type: NestedErrorBody })
  async portal(@Query() query: SandboxBrokeragePortalQuery, @RequestId() requestId: string, @Res() response: FastifyReply): Promise<void> {
    await redirectToPortalReturn(response, this.config, await this.flows.completeSandboxPortal(query.session, requestId));
  }

  @Post('sandbox/brokerage/authorizations/:brokerageAuthorizationId/disable')
  @HttpCode(200)
  @ApiBearerAuth('bearerAuth')
  @ApiOperation({
    operationId: 'disableSandboxBrokerageAuthorization',
    summary: 'Have the sandbox brokerage drop one of your authorizations; answers once its accounts show needsReauth',
    description:
      'As a brokerage ending a connection: the sandbox refuses the authorization’s data until it is reconnected (POST /brokerage/connect ' +
      '{reconnectAuthorizationId}), and its accounts show needsReauth: true in GET /accounts and GET /brokerage/accounts. Disabling it again changes nothing.',
  })
  @ApiParam(BROKERAGE_AUTHORIZATION_ID_PARAM)
  @ApiOkResponse({ type: SandboxBrokerageDisabledResponse })
  // No body is taken, but one sent is still parsed at the edge: malformed (400) or oversize (413).
  @ApiErrors(400, 401, 403, 404, 413, 503)
  async disable(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @BrokerageAuthorizationIdParam() brokerageAuthorizationId: string): Promise<SandboxBrokerageDisabledResponse> {
    await this.flows.disableInSandbox(userCommandContext(principal, trace, this.clock), brokerageAuthorizationId);
    return { success: true };
  }
}
