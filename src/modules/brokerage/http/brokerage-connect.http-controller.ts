import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiDefaultResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { AppConfig } from '../../../config/config.js';
import type { Clock } from '../../../core/clock.js';
import { CurrentPrincipal, Public } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors, NestedErrorBody } from '../../../infrastructure/http/openapi-errors.js';
import { QueryFromProvider } from '../../../infrastructure/http/query-keys.interceptor.js';
import { RequestId, type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { CLOCK, CONFIG } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import { BrokerageConnectFlows } from '../connect/brokerage-connect.flows.js';
import { BrokerageDisconnectFlows } from '../disconnect/brokerage-disconnect.flows.js';
import { BROKERAGE_AUTHORIZATION_ID_PARAM, BrokerageAuthorizationIdParam } from './brokerage-authorization-id.param.js';
import { BrokeragePortalReturnQuery, ConnectBrokerageRequest } from './brokerage-connect.requests.js';
import { BrokerageConnectResponse } from './brokerage-connect.responses.js';
import { redirectToPortalReturn } from './portal-return.redirect.js';

@ApiTags('Brokerage')
@ApiBearerAuth('bearerAuth')
@Controller()
export class BrokerageConnectHttpController {
  constructor(
    private readonly flows: BrokerageConnectFlows,
    private readonly disconnection: BrokerageDisconnectFlows,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('brokerage/connect')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'connectBrokerage',
    summary: 'The brokerage provider’s connection portal: a new connection, or a reconnect of one of your authorizations',
    description:
      'Open redirectUrl in the user’s browser. Completing the portal records the authorization and its investment accounts (they join GET /accounts with ' +
      'source brokerage_link), queues their first sync (activities, holdings, and a year of daily portfolio snapshots), and returns the browser to the ' +
      'configured return URL with `brokerageAuthorizationId` and `status=connected`. With reconnectAuthorizationId, the portal repairs that authorization: ' +
      'its accounts’ needsReauth clears. 400 BROKERAGE_LINK_NOT_CONFIGURED: no brokerage-link provider is configured; 404: reconnectAuthorizationId is not one of yours.',
  })
  @ApiOkResponse({ type: BrokerageConnectResponse })
  @ApiErrors(400, 401, 403, 404, 422)
  connect(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: ConnectBrokerageRequest): Promise<BrokerageConnectResponse> {
    // null is absent, as for every optional field.
    return this.flows.connect(userCommandContext(principal, trace, this.clock), body.reconnectAuthorizationId ?? undefined);
  }

  @Get('brokerage/portal/return')
  @Public()
  // The provider sends the browser here and may add parameters of its own.
  @QueryFromProvider()
  @ApiOperation({
    operationId: 'returnFromBrokeragePortal',
    summary: 'Where a real provider’s connection portal sends the browser back: records what was connected and redirects to the return URL',
    description:
      'The return URL POST /brokerage/connect gives a real provider’s portal (SnapTrade’s), opened by the user’s browser with no other credential: the ' +
      'session token in it is one (single use, valid an hour, naming the user who asked). The service asks the provider for the user’s connections and records ' +
      'each active one it has not recorded (and the one a reconnect repaired) with its investment accounts, queues their first sync, and answers 302 to ' +
      'BROKERAGE_RETURN_URL with `brokerageAuthorizationId` and `status=connected`, or `status=not_connected` when nothing was connected. Parameters the ' +
      'provider adds are ignored. 400 INVALID_PORTAL_SESSION: the session is unknown, expired, already used, or the sandbox is the provider (its own portal ' +
      'completes the connection); nothing changes. 409 BROKERAGE_AUTHORIZATION_DISCONNECTED: a reconnect of a connection you have since disconnected.',
    security: [],
  })
  @ApiResponse({
    status: 302,
    description: 'Back to the return URL: connected, or not',
    headers: {
      Location: { description: 'BROKERAGE_RETURN_URL with brokerageAuthorizationId and status=connected, or status=not_connected, added to its query', schema: { type: 'string', format: 'uri' } },
      'Set-Cookie': {
        description: 'When connected and the return URL is on the service’s own origin (the default): `pf_portal_return`, httpOnly, 10 minutes, sealed, so the return page can name the connected accounts to this browser alone',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(400, 409, 422)
  @ApiDefaultResponse({ description: 'Unexpected error (logged with the request id)', type: NestedErrorBody })
  async portalReturn(@Query() query: BrokeragePortalReturnQuery, @RequestId() requestId: string, @Res() response: FastifyReply): Promise<void> {
    await redirectToPortalReturn(response, this.config, await this.flows.completeProviderPortal(query.session, requestId));
  }

  @Delete('brokerage/authorizations/:brokerageAuthorizationId')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'disconnectBrokerageAuthorization',
    summary: 'Disconnect a brokerage connection: it and its accounts leave every list (idempotent)',
    description:
      'Its accounts leave GET /accounts, GET /brokerage/accounts, the overview, activities and portfolio snapshots (an accountId filter naming one is then a 404); ' +
      'their history stays in the event streams, and no sync runs for the connection again. The connection is removed at the provider. ' +
      'Again: success, nothing changes. Not one of your authorizations: 404. One account alone: DELETE /accounts/{accountId}.',
  })
  @ApiParam(BROKERAGE_AUTHORIZATION_ID_PARAM)
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrors(401, 403, 404, 503)
  async disconnect(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @BrokerageAuthorizationIdParam() brokerageAuthorizationId: string): Promise<SuccessResponse> {
    const { disconnected } = await this.disconnection.disconnectAuthorization(userCommandContext(principal, trace, this.clock), brokerageAuthorizationId);
    return { success: true, message: disconnected ? 'Brokerage connection disconnected' : 'Nothing to disconnect: the connection is already disconnected' };
  }
}
