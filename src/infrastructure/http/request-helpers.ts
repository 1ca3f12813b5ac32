import { createParamDecorator, type ExecutionContext, Param, type PipeTransform } from '@nestjs/common';
import type { Clock } from '../../core/clock.js';
import { NotFoundError } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import type { Principal } from '../../modules/identity/identity.store.js';
import type { CommandContext } from '../event-store/handle-command.js';
import type { RequestWithContext } from './request-context.middleware.js';

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

export function userCommandContext(principal: Principal, requestId: string, clock: Clock): CommandContext {
  return { userId: principal.user.id, actor: 'user', requestId, now: clock.now() };
}
