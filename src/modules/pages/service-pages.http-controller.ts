import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { Public } from '../../infrastructure/http/api-key.guard.js';
import { QueryFromProvider } from '../../infrastructure/http/query-keys.interceptor.js';
import { readCookie } from '../../infrastructure/http/session-cookie.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { CLOCK, DATABASE } from '../../infrastructure/runtime/tokens.js';
import { BROKERAGE_LINK, type BrokerageLink } from '../brokerage/brokerage-link.wiring.js';
import { connectedAccountNames, openPortalReturn, PORTAL_RETURN_COOKIE } from '../brokerage/connect/portal-return.js';
import { brokerageReturnPage, rootPage } from './service-pages.html.js';

/** No script, no frames, no form, nothing loaded from anywhere: the pages are text and links. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The service's root, outside /v1 and the OpenAPI document (like /health): a page for a person, not
 * an operation. With the portal's parameters it is the default BROKERAGE_RETURN_URL (`$PUBLIC_URL/`),
 * whose query the provider writes (it may add parameters of its own).
 */
@ApiExcludeController()
@Controller()
export class ServicePagesHttpController {
  constructor(
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(BROKERAGE_LINK) private readonly brokerage: BrokerageLink,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @Public()
  @QueryFromProvider()
  async root(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() response: FastifyReply): Promise<void> {
    response
      .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8');
    const authorizationId = typeof query.brokerageAuthorizationId === 'string' ? query.brokerageAuthorizationId : null;
    if (authorizationId === null && query.status === undefined) {
      await response.code(200).send(rootPage());
      return;
    }
    const connected = query.status === 'connected' && authorizationId !== null;
    const opened = connected ? openPortalReturn(this.brokerage.sealer, readCookie(request, PORTAL_RETURN_COOKIE), authorizationId, this.clock.now()) : null;
    const accountNames = opened ? await connectedAccountNames(this.db, opened) : null;
    await response.code(200).send(brokerageReturnPage({ connected, accountNames }));
  }
}
