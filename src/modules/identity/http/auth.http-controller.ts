import { Body, Controller, Get, Header, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCookieAuth, ApiDefaultResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { DomainRuleError } from '../../../core/errors.js';
import { CurrentPrincipal, Public } from '../../../infrastructure/http/api-key.guard.js';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../../../infrastructure/http/http-error.filter.js';
import { ApiErrors, NestedErrorBody } from '../../../infrastructure/http/openapi-errors.js';
import { QueryFromProvider } from '../../../infrastructure/http/query-keys.interceptor.js';
import { type SameOriginPolicy, senderHeaders } from '../../../infrastructure/http/same-origin.js';
import { clearSessionCookie, readSessionCookie, type SessionCookiePolicy, setSessionCookie } from '../../../infrastructure/http/session-cookie.js';
import type { RateLimiter } from '../../../infrastructure/rate-limit/rate-limiter.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { DATABASE } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../identity.store.js';
import { SAME_ORIGIN_POLICY, SESSION_COOKIE_POLICY, SIGN_IN_RATE_LIMITER, SIGN_IN_SERVICE } from '../identity.tokens.js';
import { closeSession } from '../session.store.js';
import { generateBrowserBinding, isBrowserBindingFormat } from '../sign-in/sign-in-flow.store.js';
import { failureMessage, type SignInService } from '../sign-in/sign-in.service.js';
import { OAuthCallbackQuery, SignInRequest } from './auth.requests.js';
import { SessionResponse, SignInResponse } from './auth.responses.js';
import { clearSignInCookie, readSignInCookie, setSignInCookie } from './sign-in-cookie.js';

/** The sign-in operations are unauthenticated, so they are limited per client address instead of per user. */
const SIGN_IN_RATE_LIMITED = ApiResponse({
  status: 429,
  description: 'Too many sign-in requests from this address (RATE_LIMITED; SIGN_IN_RATE_LIMIT_PER_MINUTE)',
  headers: { 'Retry-After': { description: 'Seconds until the limit resets', schema: { type: 'integer', minimum: 1 } } },
  schema: { $ref: getSchemaPath(NestedErrorBody) },
});

/** Browser sign-in, on the service origin outside /v1 (the spec's `{auth_url}/api/auth`). */
@ApiTags('Authentication')
@Controller('api/auth')
export class AuthHttpController {
  constructor(
    @Inject(SIGN_IN_SERVICE) private readonly signIn: SignInService,
    @Inject(SAME_ORIGIN_POLICY) private readonly sameOrigin: SameOriginPolicy,
    @Inject(SESSION_COOKIE_POLICY) private readonly cookiePolicy: SessionCookiePolicy,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(SIGN_IN_RATE_LIMITER) private readonly signInLimiter: RateLimiter | null,
  ) {}

  @Post('sign-in/social')
  @Public()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'signInSocial', summary: "Begin an OAuth 2.0 sign-in: the provider's consent screen to send the browser to", security: [] })
  @ApiOkResponse({
    type: SignInResponse,
    headers: { 'Set-Cookie': { description: '`pf_sign_in`: binds the sign-in to this browser (HttpOnly, SameSite=Lax, Path=/api/auth, 10 minutes)', schema: { type: 'string' } } },
  })
  @ApiErrors(400, 422)
  @SIGN_IN_RATE_LIMITED
  async signInSocial(@Body() body: SignInRequest, @Req() request: FastifyRequest, @Res({ passthrough: true }) response: FastifyReply): Promise<SignInResponse> {
    await this.limitByAddress(request);
    // A browser with a sign-in already under way keeps its binding, so two tabs can both finish.
    const current = readSignInCookie(request);
    const binding = current && isBrowserBindingFormat(current) ? current : generateBrowserBinding();
    const url = await this.signIn.begin(body.provider, body.callbackURL, binding);
    setSignInCookie(response, this.cookiePolicy, binding);
    return { url, redirect: true };
  }

  @Get('callback/:provider')
  @Public()
  // Providers add parameters of their own to the redirect (Google: scope, authuser, prompt, hd).
  @QueryFromProvider()
  @ApiOperation({
    operationId: 'signInCallback',
    summary: 'Where the provider returns the browser: exchanges the code, sets the session cookie, redirects to callbackURL',
    description:
      'Register `{PUBLIC_URL}/api/auth/callback/{provider}` as the redirect URI at the provider. On success: 302 to callbackURL with the ' +
      '`pf_session` cookie. On failure: 302 to callbackURL with `?error=<code>` (access_denied, provider_error, code_rejected, ' +
      'provider_unavailable, profile_incomplete) when the sign-in is known, else 400. The sign-in is known only to the browser that began it: ' +
      'without its `pf_sign_in` cookie the state is unknown (400 INVALID_STATE). Parameters the provider adds beyond these (scope, authuser, …) are ignored.',
    security: [],
  })
  @ApiResponse({
    status: 302,
    description: 'Back to callbackURL: signed in (with the cookie) or with `?error=<code>`',
    headers: {
      Location: { description: 'callbackURL, with `error` on failure', schema: { type: 'string', format: 'uri' } },
      'Set-Cookie': { description: '`pf_session` on success (HttpOnly, SameSite=Lax, Path=/, Secure unless PUBLIC_URL is plain-http localhost); `pf_sign_in` cleared once the sign-in is used', schema: { type: 'string' } },
    },
  })
  @ApiErrors(400, 422)
  @SIGN_IN_RATE_LIMITED
  @ApiDefaultResponse({ description: 'Unexpected error (logged with the request id)', type: NestedErrorBody })
  async callback(@Param('provider') provider: string, @Query() query: OAuthCallbackQuery, @Req() request: FastifyRequest, @Res() response: FastifyReply): Promise<void> {
    await this.limitByAddress(request);
    const outcome = await this.signIn.complete(provider, query, readSignInCookie(request));
    response.header('Cache-Control', 'no-store');
    // The flow was this browser's and is used up: its binding has done its job. (A callback that
    // was not recognised leaves the cookie, so a forged one cannot spoil a sign-in under way.)
    if (outcome.kind === 'signedIn' || outcome.callbackURL) clearSignInCookie(response, this.cookiePolicy);
    if (outcome.kind === 'signedIn') {
      setSessionCookie(response, this.cookiePolicy, outcome.session.token, outcome.session.expiresAt, outcome.session.openedAt);
      return redirect(response, outcome.callbackURL);
    }
    if (!outcome.callbackURL) throw new DomainRuleError(outcome.failure.toUpperCase(), failureMessage(outcome.failure));
    const back = new URL(outcome.callbackURL);
    back.searchParams.set('error', outcome.failure);
    redirect(response, back.toString());
  }

  @Get('session')
  @ApiCookieAuth('sessionCookie')
  @ApiOperation({ operationId: 'getSession', summary: 'The signed-in user and when the session expires' })
  @ApiOkResponse({ type: SessionResponse })
  @ApiErrors(401)
  session(@CurrentPrincipal() principal: Principal): SessionResponse {
    if (principal.credential.kind !== 'session') throw new UnauthorizedError();
    return { user: { id: principal.user.id, email: principal.user.email, name: principal.user.name }, session: { expiresAt: principal.credential.expiresAt.toISOString() } };
  }

  @Post('sign-out')
  @Public()
  @HttpCode(200)
  @ApiOperation({ operationId: 'signOut', summary: 'End the session and clear its cookie (nothing to do without one)', security: [{ sessionCookie: [] }, {}] })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrors(403)
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) response: FastifyReply): Promise<SuccessResponse> {
    const token = readSessionCookie(request);
    if (token && !this.sameOrigin.allows(senderHeaders(request.headers))) {
      throw new ForbiddenError('Cross-site request refused: sign out from the service or an allowed web app.');
    }
    if (token) await closeSession(this.db, token);
    clearSessionCookie(response, this.cookiePolicy);
    return { success: true, message: token ? 'Signed out' : 'There was no session to sign out of' };
  }

  private async limitByAddress(request: FastifyRequest): Promise<void> {
    if (!this.signInLimiter) return;
    const decision = await this.signInLimiter.consume(`sign-in-ip:${request.ip ?? request.socket.remoteAddress ?? 'unknown'}`);
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
  }
}

function redirect(response: FastifyReply, location: string): void {
  response.code(302).header('Location', location).send();
}
