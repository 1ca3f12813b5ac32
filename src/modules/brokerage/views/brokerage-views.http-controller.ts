import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import type { Principal } from '../../identity/identity.store.js';
import { GetBrokerageOverview, ListBrokerageAccounts, ListBrokerageActivities, ListPortfolioSnapshots } from './brokerage-views.queries.js';
import { ActivityListQuery, PortfolioSnapshotQuery } from './brokerage-views.query-params.js';
import { ActivityListResponse, BrokerageAccountListResponse, BrokerageOverviewResponse, PortfolioSnapshotListResponse } from './brokerage-views.responses.js';

/** Reads of the brokerage read model only: the request path never calls the provider. */
@ApiTags('Brokerage')
@ApiBearerAuth('bearerAuth')
@Controller()
export class BrokerageViewsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get('brokerage/accounts')
  @ApiOperation({ operationId: 'listBrokerageAccounts', summary: 'Your brokerage accounts with their latest balance and whether their connection needs a reconnect' })
  @ApiOkResponse({ type: BrokerageAccountListResponse })
  @ApiErrors(401, 403)
  accounts(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new ListBrokerageAccounts(principal.user.id));
  }

  @Get('brokerage/overview')
  @ApiOperation({
    operationId: 'getBrokerageOverview',
    summary: 'Balances, positions, recent activities and recent portfolio snapshots of every brokerage account, as arrays and by account; money as decimal strings',
  })
  @ApiOkResponse({ type: BrokerageOverviewResponse })
  @ApiErrors(401, 403)
  overview(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new GetBrokerageOverview(principal.user.id));
  }

  @Get('activities')
  @ApiOperation({
    operationId: 'listBrokerageActivities',
    summary: 'Buys, sells, dividends, fees, contributions and transfers across your brokerage accounts (or one), newest first (tradeDate, then import time, then id), by offset',
  })
  @ApiOkResponse({ type: ActivityListResponse })
  @ApiErrors(401, 403, 404, 422)
  activities(@CurrentPrincipal() principal: Principal, @Query() query: ActivityListQuery) {
    return this.queries.execute(new ListBrokerageActivities(principal.user.id, query));
  }

  @Get('portfolio/snapshots')
  @ApiOperation({ operationId: 'listPortfolioSnapshots', summary: 'End-of-day values of your brokerage accounts (or one), oldest first: total = cash + holdings' })
  @ApiOkResponse({ type: PortfolioSnapshotListResponse })
  @ApiErrors(401, 403, 404, 422)
  snapshots(@CurrentPrincipal() principal: Principal, @Query() query: PortfolioSnapshotQuery) {
    return this.queries.execute(new ListPortfolioSnapshots(principal.user.id, query));
  }
}
