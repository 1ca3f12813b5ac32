import { createParamDecorator, type ExecutionContext, Param, type PipeTransform } from '@nestjs/common';
import type { Clock } from '../../core/clock.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { isUuid, nameBasedId, newId } from '../../core/ids.js';
import type { Principal } from './authenticator.port.js';
import type { AppendClaim } from '../event-store/event-store.port.js';
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
  /** The Idempotency-Key this request claimed, or claims with its first append (decision 0040). */
  readonly idempotencyKey?: string;
  /** What the key was first used for (method, path, body): with the key, what a create's id is derived from. */
  readonly idempotencyFingerprint?: string;
  readonly claimWithAppend?: AppendClaim;
}

export const Trace = createParamDecorator((_data: unknown, context: ExecutionContext): RequestTrace => {
  const request = context.switchToHttp().getRequest<RequestWithContext>();
  const claim = request.idempotencyClaim;
  if (claim === undefined) return { requestId: request.id, correlationId: request.correlationId };
  return {
    requestId: request.id,
    correlationId: request.correlationId,
    idempotencyKey: claim.key,
    idempotencyFingerprint: claim.fingerprint,
    ...(claim.withAppend ? { claimWithAppend: claim.withAppend } : {}),
  };
});

/** A user's command: its events record the request and its correlation; the request caused them. */
export function userCommandContext(principal: Principal, trace: RequestTrace, clock: Clock): CommandContext {
  const context: CommandContext = { userId: principal.user.id, actor: 'user', requestId: trace.requestId, correlationId: trace.correlationId, causationId: trace.requestId, now: clock.now() };
  if (trace.idempotencyKey === undefined) return context;
  return {
    ...context,
    idempotencyKey: trace.idempotencyKey,
    ...(trace.idempotencyFingerprint === undefined ? {} : { idempotencyFingerprint: trace.idempotencyFingerprint }),
    ...(trace.claimWithAppend ? { claimWithAppend: trace.claimWithAppend } : {}),
  };
}

/**
 * The id of what a create makes. Under an Idempotency-Key it is derived from the user, the key and
 * the request, so a create run again for the same key (its first run died before its answer was
 * kept) names the same stream and cannot make a second one (decision 0040); the key used again
 * after its 24 hours for another request makes another.
 */
export function newEntityId(context: CommandContext, kind: string): string {
  if (context.idempotencyKey === undefined) return newId();
  return nameBasedId(IDEMPOTENT_CREATES, `${context.userId}\n${kind}\n${context.idempotencyKey}\n${context.idempotencyFingerprint ?? ''}`);
}

/**
 * A create run again under its key finds what its first run made (that run died before its answer
 * was kept): the entity is there, made by this key, and the create answers it as made.
 */
export function madeEarlierUnderKey(error: unknown, context: CommandContext): boolean {
  return context.idempotencyKey !== undefined && error instanceof DomainRuleError && error.code.endsWith('_EXISTS');
}

/** Namespace of the ids creates under an Idempotency-Key derive (a fixed random UUID). */
const IDEMPOTENT_CREATES = '5d0f6a52-3c1e-4b8e-9a57-2f1c0b7d9e44';
