import { Body, Controller, Delete, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Clock } from '../../../core/clock.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import { CLOCK } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { LinkItemFlows } from '../link-items/link-item.flows.js';
import { ListLinkAccounts, ListLinkItemAlerts, ListLinkItems } from '../link-items/link-item.queries.js';
import { LinkItemIdParam } from './link-item-id.param.js';
import { CreateLinkTokenRequest, ExchangePublicTokenRequest } from './link.requests.js';
import { LinkAccountListResponse, LinkItemAlertListResponse, LinkItemListResponse, LinkItemResponse, LinkTokenResponse } from './link.responses.js';

const LINK_ITEM_ID_PARAM = { name: 'linkItemId', description: 'The provider’s item id (the link item’s linkItemId).', schema: { type: 'string', maxLength: 200 } } as const;

@ApiTags('Bank link')
@ApiBearerAuth('bearerAuth')
@Controller()
export class LinkItemsHttpController {
  constructor(
    private readonly flows: LinkItemFlows,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post('link/token')
  @HttpCode(200)
  @ApiOperation({ operationId: 'createLinkToken', summary: 'A link token that opens the provider’s link flow (or reconnects one of your items)' })
  @ApiOkResponse({ type: LinkTokenResponse })
  @ApiErrors(400, 401, 403, 404, 422)
  createLinkToken(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: CreateLinkTokenRequest): Promise<LinkTokenResponse> {
    return this.flows.createLinkToken(userCommandContext(principal, trace, this.clock), body.reconnectLinkItemId);
  }

  @Post('link/items')
  @ApiOperation({ operationId: 'exchangePublicToken', summary: 'Link an item: exchange the link flow’s public token; its accounts join GET /accounts' })
  @ApiCreatedResponse({ type: LinkItemResponse })
  @ApiErrors(400, 401, 403, 409, 422, 503)
  link(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: ExchangePublicTokenRequest): Promise<LinkItemResponse> {
    return this.flows.link(userCommandContext(principal, trace, this.clock), body.publicToken);
  }

  @Get('link/items')
  @ApiOperation({ operationId: 'listLinkItems', summary: 'Your linked items, oldest first (disconnected ones leave the list)' })
  @ApiOkResponse({ type: LinkItemListResponse })
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new ListLinkItems(principal.user.id));
  }

  @Get('link/items/alerts')
  @ApiOperation({ operationId: 'listLinkItemAlerts', summary: 'Items that need you: login required, new accounts available, or a pending disconnect' })
  @ApiOkResponse({ type: LinkItemAlertListResponse })
  @ApiErrors(401, 403)
  alerts(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new ListLinkItemAlerts(principal.user.id));
  }

  @Get('link/items/:linkItemId/accounts')
  @ApiOperation({ operationId: 'listLinkAccounts', summary: 'The accounts of one of your items' })
  @ApiParam(LINK_ITEM_ID_PARAM)
  @ApiOkResponse({ type: LinkAccountListResponse })
  @ApiErrors(401, 403, 404)
  accounts(@CurrentPrincipal() principal: Principal, @LinkItemIdParam() linkItemId: string) {
    return this.queries.execute(new ListLinkAccounts(principal.user.id, linkItemId));
  }

  @Post('link/items/:linkItemId/sync')
  @HttpCode(200)
  @ApiOperation({ operationId: 'syncLinkItem', summary: 'Queue a sync of one of your items: new, changed and removed transactions from the provider' })
  @ApiParam(LINK_ITEM_ID_PARAM)
  @ApiOkResponse({ type: SuccessResponse })
  // No body is taken, but one sent is still parsed at the edge: malformed (400) or oversize (413).
  @ApiErrors(400, 401, 403, 404, 413)
  async sync(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @LinkItemIdParam() linkItemId: string): Promise<SuccessResponse> {
    await this.flows.sync(userCommandContext(principal, trace, this.clock), linkItemId);
    return { success: true, message: 'Sync queued' };
  }

  @Delete('link/items/:linkItemId')
  @HttpCode(200)
  @ApiOperation({ operationId: 'disconnectLinkItem', summary: 'Disconnect an item: it, its accounts and their transactions leave every list (idempotent)' })
  @ApiParam(LINK_ITEM_ID_PARAM)
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrors(401, 403, 404, 503)
  async disconnect(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @LinkItemIdParam() linkItemId: string): Promise<SuccessResponse> {
    const { disconnected } = await this.flows.disconnect(userCommandContext(principal, trace, this.clock), linkItemId);
    return { success: true, message: disconnected ? 'Link item disconnected' : 'Nothing to disconnect: the item is already disconnected' };
  }
}
