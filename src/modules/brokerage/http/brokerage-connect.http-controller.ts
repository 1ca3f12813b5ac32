import { Body, Controller, Delete, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Clock } from '../../../core/clock.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { CLOCK } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import { BrokerageConnectFlows } from '../connect/brokerage-connect.flows.js';
import { BrokerageDisconnectFlows } from '../disconnect/brokerage-disconnect.flows.js';
import { BROKERAGE_AUTHORIZATION_ID_PARAM, BrokerageAuthorizationIdParam } from './brokerage-authorization-id.param.js';
import { ConnectBrokerageRequest } from './brokerage-connect.requests.js';
import { BrokerageConnectResponse } from './brokerage-connect.responses.js';

@ApiTags('Brokerage')
@ApiBearerAuth('bearerAuth')
@Controller()
export class BrokerageConnectHttpController {
  constructor(
    private readonly flows: BrokerageConnectFlows,
    private readonly disconnection: BrokerageDisconnectFlows,
    @Inject(CLOCK) private readonly clock: Clock,
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
