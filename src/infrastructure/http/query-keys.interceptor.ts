import { type CallHandler, type ExecutionContext, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Reflector } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { ValidationFailedError } from '../../core/errors.js';

const QUERY_FROM_PROVIDER = 'ledgerline:query-from-provider';

/**
 * Marks a route whose query another party writes (an OAuth provider's callback, a brokerage
 * portal's return), which may add parameters of its own: its unknown keys are ignored.
 */
export const QueryFromProvider = () => SetMetadata(QUERY_FROM_PROVIDER, true);

/** Enough for a client to fix its request (as the validation pipe's cap). */
const MAX_ISSUES = 100;

type Handler = (...args: unknown[]) => unknown;

/**
 * A query parameter the operation does not take is a 422 `unrecognized_keys`, as an unknown body
 * field is: `?acountId=` silently ignored would answer every account. The keys an operation takes
 * are those of its `@Query()` DTO (or the names of its `@Query('name')` parameters); one without
 * any takes none. Runs after the credentials guard (401 first) and before the pipes.
 */
export class QueryKeysInterceptor implements NestInterceptor {
  private readonly known = new WeakMap<Handler, ReadonlySet<string> | 'any'>();

  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const accepted = this.acceptedKeys(context);
      if (accepted !== 'any') {
        const query = context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, unknown> | undefined;
        const unknown = Object.keys(query ?? {}).filter((key) => !accepted.has(key));
        if (unknown.length > 0) {
          throw new ValidationFailedError(unknown.slice(0, MAX_ISSUES).map((key) => ({ code: 'unrecognized_keys' as const, message: `Unrecognized query parameter: "${key}"`, path: [key] })));
        }
      }
    }
    return next.handle();
  }

  private acceptedKeys(context: ExecutionContext): ReadonlySet<string> | 'any' {
    const handler = context.getHandler() as Handler;
    let accepted = this.known.get(handler);
    if (accepted === undefined) {
      accepted = this.reflector.getAllAndOverride<boolean>(QUERY_FROM_PROVIDER, [handler, context.getClass()]) ? 'any' : queryKeysOf(context.getClass<new (...args: never[]) => unknown>(), handler);
      this.known.set(handler, accepted);
    }
    return accepted;
  }
}

/** Nest keeps a route's parameter decorators on its controller class as `<paramtype>:<index>` → `{index, data}`. */
function queryKeysOf(controller: new (...args: never[]) => unknown, handler: Handler): ReadonlySet<string> {
  const routeArguments = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const parameterTypes = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, handler.name) ?? []) as unknown[];
  const keys = new Set<string>();
  for (const [key, argument] of Object.entries(routeArguments)) {
    if (Number(key.split(':')[0]) !== RouteParamtypes.QUERY) continue;
    if (typeof argument.data === 'string') {
      keys.add(argument.data);
      continue;
    }
    const dto = parameterTypes[argument.index];
    if (typeof dto !== 'function') continue;
    for (const metadata of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) keys.add(metadata.propertyName);
  }
  return keys;
}
