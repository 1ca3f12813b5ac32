import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { documentInputErrors } from '../http/openapi-errors.js';
import { SESSION_COOKIE } from '../http/session-cookie.js';
import { documentSafeRetries } from './safe-retries.openapi.js';

export const API_VERSION = '0.1.0';

export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Ledgerline API')
    .setDescription(
      'Personal-finance HTTP/JSON API for one signed-in user: accounts, transactions, balances. ' +
        'Amounts are JSON numbers (signed for transactions: positive in, negative out) with at most 4 decimals, ' +
        'except in GET /brokerage/overview and GET /brokerage/accounts, whose money, prices and units are exact decimal strings because the spec types them `string or null` there; ' +
        'GET /activities and GET /portfolio/snapshots give the same amounts as numbers, as the spec types those. ' +
        'Dates are YYYY-MM-DD, timestamps ISO 8601 UTC. Clients must tolerate unknown response fields.',
    )
    .setVersion(API_VERSION)
    .setLicense('Proprietary', `${publicUrl}/v1/docs`)
    .addServer(publicUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'pf_live_ API key', description: 'An API key: pf_live_ followed by 40 base62 characters.' }, 'bearerAuth')
    .addCookieAuth(
      SESSION_COOKIE,
      { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The browser session set by the sign-in callback. Writes must come from the service or an allowed web app (Origin, else Referer).' },
      'sessionCookie',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory: (_controller, method) => method });
  return toOpenApi31(documentSafeRetries(documentInputErrors(acceptSessionWhereKeysAre(document))));
}

/**
 * The guard takes the session cookie wherever it takes an API key, so every operation that
 * declares `bearerAuth` lists `sessionCookie` beside it (two requirements: either will do).
 * Done here once, so no controller can forget it.
 */
function acceptSessionWhereKeysAre(document: OpenAPIObject): OpenAPIObject {
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<{ security?: Array<Record<string, string[]>> }>) {
      if (!operation || typeof operation !== 'object' || !Array.isArray(operation.security)) continue;
      const bearer = operation.security.some((requirement) => 'bearerAuth' in requirement);
      const cookie = operation.security.some((requirement) => 'sessionCookie' in requirement);
      if (bearer && !cookie) operation.security.push({ sessionCookie: [] });
    }
  }
  return document;
}

type Json = unknown;

/**
 * @nestjs/swagger still writes 3.0's `nullable: true`; OpenAPI 3.1 (JSON Schema 2020-12)
 * says the same with a `null` type. Rewrite every schema once, at start-up.
 */
export function toOpenApi31<T>(document: T): T {
  return rewrite(document) as T;
}

function rewrite(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const object = Object.fromEntries(Object.entries(node as Record<string, Json>).map(([key, value]) => [key, rewrite(value)])) as Record<string, Json>;
  if (object.nullable !== true) {
    delete object.nullable;
    return object;
  }
  delete object.nullable;
  if (typeof object.$ref === 'string' || Array.isArray(object.allOf) || Array.isArray(object.oneOf)) {
    const { description, ...schema } = object;
    return { ...(description ? { description } : {}), anyOf: [schema, { type: 'null' }] };
  }
  if (typeof object.type === 'string') {
    const result: Record<string, Json> = { ...object, type: [object.type, 'null'] };
    if (Array.isArray(object.enum)) result.enum = [...object.enum, null];
    return result;
  }
  return object;
}
