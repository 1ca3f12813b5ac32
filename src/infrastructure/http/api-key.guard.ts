import { type CanActivate, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import type { Clock } from '../../core/clock.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { Authenticator, Principal, Scope } from './authenticator.port.js';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from './http-error.filter.js';
import type { RequestWithContext } from './request-context.hooks.js';
import { type SameOriginPolicy, senderHeaders } from './same-origin.js';
import { readSessionCookie, type SessionCookiePolicy, setSessionCookie } from './session-cookie.js';

const PUBLIC = 'ledgerline:public';
/** Marks a route that needs no credentials (health, the OpenAPI document, signing in). */
export const Public = () => SetMetadata(PUBLIC, true);

const REQUIRED_SCOPE = 'ledgerline:required-scope';
/**
 * A scope an API key needs on top of read/write (a session has every scope). Checked after the
 * read/write scope, so a read-only key on a write still hears that it lacks `write`.
 */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

const ON_ITSELF_PARAM = 'ledgerline:on-itself-param';
/**
 * A route any API key may call on itself whatever its scopes: when the path parameter `param`
 * names the key making the request (revoking it), neither read/write nor the required scope is
 * checked. A key that can be used can always be made unusable by whoever holds it.
 */
export const AnyKeyOnItself = (param: string) => SetMetadata(ON_ITSELF_PARAM, param);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LAST_USED_PRECISION_MS = 60_000;

type AuthenticatedRequest = RequestWithContext & { principal?: Principal };

export interface CredentialsGuardOptions {
  readonly authenticator: Authenticator;
  readonly clock: Clock;
  readonly sameOrigin: SameOriginPolicy;
  readonly cookiePolicy: SessionCookiePolicy;
  /** Null when rate limiting is off. */
  readonly rateLimiter: RateLimiter | null;
}

/**
 * Every route is protected unless marked @Public. A request brings a bearer API key or, from a
 * browser, the session cookie (which then gets both scopes, and must come from a trusted origin
 * to change anything). Anything that is not a read needs the `write` scope; every authenticated
 * request counts against its user's rate limit. Who a credential belongs to is the authenticator's
 * answer (identity's, behind the port): how fast a revocation takes effect is its promise to keep.
 */
export class CredentialsGuard implements CanActivate {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly reflector: Reflector,
    private readonly options: CredentialsGuardOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const isRead = READ_METHODS.has(request.method);
    const principal = request.headers.authorization !== undefined ? await this.byApiKey(request) : await this.bySession(request, context.switchToHttp().getResponse<FastifyReply>(), isRead);
    request.principal = principal;
    request.principalUserId = principal.user.id;
    if (this.options.rateLimiter) {
      const decision = await this.options.rateLimiter.consume(`user:${principal.user.id}`);
      if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
    }
    if (!this.isKeyOnItself(context, request, principal)) this.checkScopes(context, principal, isRead);
    if (principal.credential.kind === 'apiKey') this.recordUse(principal.credential.apiKeyId);
    return true;
  }

  private checkScopes(context: ExecutionContext, principal: Principal, isRead: boolean): void {
    const needed = isRead ? 'read' : 'write';
    if (!principal.scopes.includes(needed)) throw new ForbiddenError(`This API key lacks the "${needed}" scope.`);
    const required = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
    if (required && !principal.scopes.includes(required)) {
      throw new ForbiddenError(`This API key lacks the "${required}" scope: only a session or a key issued with it may manage API keys.`);
    }
  }

  private isKeyOnItself(context: ExecutionContext, request: AuthenticatedRequest, principal: Principal): boolean {
    const param = this.reflector.getAllAndOverride<string | undefined>(ON_ITSELF_PARAM, [context.getHandler(), context.getClass()]);
    if (param === undefined || principal.credential.kind !== 'apiKey') return false;
    // Key ids are UUIDs, stored in lower case; a path may write them in any case.
    const named = (request.params as Record<string, unknown>)[param];
    return typeof named === 'string' && named.toLowerCase() === principal.credential.apiKeyId;
  }

  /** An Authorization header means a key, and only a key: a bad one is not rescued by a cookie. */
  private async byApiKey(request: AuthenticatedRequest): Promise<Principal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const principal = match ? await this.options.authenticator.byApiKey(match[1]) : null;
    if (!principal) throw new UnauthorizedError();
    return principal;
  }

  private async bySession(request: AuthenticatedRequest, response: FastifyReply, isRead: boolean): Promise<Principal> {
    const token = readSessionCookie(request);
    if (!token) throw new UnauthorizedError();
    // Checked before the session is even looked up, so a refused request cannot extend it.
    if (!isRead && !this.options.sameOrigin.allows(senderHeaders(request.headers))) {
      throw new ForbiddenError('Cross-site request refused: a request authenticated by the session cookie must come from the service or an allowed web app.');
    }
    const now = this.options.clock.now();
    const session = await this.options.authenticator.bySession(token, now);
    if (!session) throw new UnauthorizedError();
    if (session.refreshed) setSessionCookie(response, this.options.cookiePolicy, token, session.principal.credential.expiresAt, now);
    return session.principal;
  }

  /** lastUsedAt to the minute: one write per key per minute, not one per request. */
  private recordUse(apiKeyId: string): void {
    const now = this.options.clock.now();
    const last = this.lastTouched.get(apiKeyId) ?? 0;
    if (now.getTime() - last < LAST_USED_PRECISION_MS) return;
    this.lastTouched.set(apiKeyId, now.getTime());
    void this.options.authenticator.recordApiKeyUse(apiKeyId, now).catch(() => this.lastTouched.delete(apiKeyId));
  }
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new UnauthorizedError();
  return principal;
});
