import { createParamDecorator, type ExecutionContext, Param, type PipeTransform } from '@nestjs/common';
import type { Clock } from '../../core/clock.js';
import { NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import type { Principal } from './authenticator.port.js';
import type { CommandContext } from '../event-store/handle-command.js';
import type { RequestWithContext } from './request-context.hooks.js';

/** A path id that is not a UUID names nothing: 404, like an id that does not exist. */
export function UuidParam(name: string, resource: string) {
  const pipe: PipeTransform<string, string> = {
    transform(value) {
      if (!isUuid(value)) throw new NotFoundError(resource);
      return value.toLowerCase();
    },
  };
  return Param(name, pipe);
}

export const RequestId = createParamDecorator((_data: unknown, context: ExecutionContext): string => context.switchToHttp().getRequest<RequestWithContext>().id);

/** The request's own id and the correlation it belongs to (X-Request-Id, X-Correlation-Id). */
export interface RequestTrace {
  readonly requestId: string;
  readonly correlationId: string;
}

export const Trace = createParamDecorator((_data: unknown, context: ExecutionContext): RequestTrace => {
  const request = context.switchToHttp().getRequest<RequestWithContext>();
  return { requestId: request.id, correlationId: request.correlationId };
});

/** A user's command: its events record the request and its correlation; the request caused them. */
export function userCommandContext(principal: Principal, trace: RequestTrace, clock: Clock): CommandContext {
  return { userId: principal.user.id, actor: 'user', requestId: trace.requestId, correlationId: trace.correlationId, causationId: trace.requestId, now: clock.now() };
}
