import { type CanActivate, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { authenticateApiKey, type Principal, touchApiKey } from '../../modules/identity/identity.store.js';
import type { Database } from '../database/schema.js';
import { ForbiddenError, UnauthorizedError } from './http-error.filter.js';
import type { RequestWithContext } from './request-context.middleware.js';

const PUBLIC = 'ledgerline:public';
/** Marks a route that needs no credentials (health, the OpenAPI document). */
export const Public = () => SetMetadata(PUBLIC, true);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LAST_USED_PRECISION_MS = 60_000;

type AuthenticatedRequest = RequestWithContext & { principal?: Principal };

/**
 * Every route is protected unless marked @Public: a bearer API key, and the `write` scope
 * for anything that is not a read.
 */
export class ApiKeyGuard implements CanActivate {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly reflector: Reflector,
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.header('authorization') ?? '');
    const principal = match ? await authenticateApiKey(this.db, match[1]) : null;
    if (!principal) throw new UnauthorizedError();
    request.principal = principal;
    request.principalUserId = principal.user.id;
    const needed = READ_METHODS.has(request.method) ? 'read' : 'write';
    if (!principal.scopes.includes(needed)) throw new ForbiddenError(`This API key lacks the "${needed}" scope.`);
    this.recordUse(principal.apiKeyId);
    return true;
  }

  /** lastUsedAt to the minute: one write per key per minute, not one per request. */
  private recordUse(apiKeyId: string): void {
    const now = this.clock.now();
    const last = this.lastTouched.get(apiKeyId) ?? 0;
    if (now.getTime() - last < LAST_USED_PRECISION_MS) return;
    this.lastTouched.set(apiKeyId, now.getTime());
    void touchApiKey(this.db, apiKeyId, now).catch(() => this.lastTouched.delete(apiKeyId));
  }
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new UnauthorizedError();
  return principal;
});
