import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainRuleError } from '../../core/errors.js';

/**
 * ETag / If-Match (api-decisions, "Safe retries and concurrency"): an entity's tag is its stream
 * revision, quoted. A write given If-Match goes ahead only while the entity still has one of the
 * tags named (or, for `*`, while it exists); otherwise 412 and nothing is appended.
 */
export type IfMatch = '*' | readonly string[];

/** The header's entity tags, their quotes and any weak prefix taken off; undefined without the header. */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const text = (Array.isArray(header) ? header.join(',') : header).trim();
  if (text === '*') return '*';
  return text
    .split(',')
    .map((part) => part.trim().replace(/^W\//, ''))
    .filter((part) => part.length > 0)
    .map((part) => (part.length >= 2 && part.startsWith('"') && part.endsWith('"') ? part.slice(1, -1) : part));
}

export function ifMatchAllows(ifMatch: IfMatch, currentTag: string): boolean {
  return ifMatch === '*' || ifMatch.includes(currentTag);
}

export function preconditionFailed(resource: string): DomainRuleError {
  return new DomainRuleError('PRECONDITION_FAILED', `${resource} has changed since the version named in If-Match; read it again (its ETag) and retry.`, 412);
}

export const IfMatchHeader = createParamDecorator((_data: unknown, context: ExecutionContext): IfMatch | undefined => parseIfMatch(context.switchToHttp().getRequest<FastifyRequest>().headers['if-match']));

const ENTITY_TAG = Symbol('entityTag');

/** Marks a response body with its entity's tag: sent as the ETag header, never in the JSON (a symbol key). */
export function withEntityTag<Body extends object>(body: Body, tag: string): Body {
  Object.defineProperty(body, ENTITY_TAG, { value: tag, enumerable: false });
  return body;
}

export function entityTagOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? ((body as Record<symbol, string | undefined>)[ENTITY_TAG] ?? undefined) : undefined;
}

/** The header's value: the tag quoted. */
export function formatEntityTag(tag: string): string {
  return `"${tag}"`;
}

/** Sends a marked body's tag as its ETag header. */
export function installEntityTags(fastify: FastifyInstance): void {
  fastify.addHook('preSerialization', (_request, reply, payload, done) => {
    const tag = entityTagOf(payload);
    if (tag !== undefined) reply.header('ETag', formatEntityTag(tag));
    done(null, payload);
  });
}
