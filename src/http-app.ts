import 'reflect-metadata';
import querystring from 'node:querystring';
import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppModule } from './app.module.js';
import { HttpErrorFilter } from './infrastructure/http/http-error.filter.js';
import { bodyWasRefused, installRequestBody } from './infrastructure/http/request-body.hooks.js';
import { installRequestContext, requestIdOf } from './infrastructure/http/request-context.hooks.js';
import { installEntityTags } from './infrastructure/http/entity-tags.js';
import { installIdempotency } from './infrastructure/http/idempotency/idempotency.interceptor.js';
import { PinoNestLogger } from './infrastructure/logging/logger.js';
import { installHttpMetrics } from './infrastructure/metrics/http-metrics.hook.js';
import { buildOpenApiDocument } from './infrastructure/openapi/openapi-document.js';
import { keepReferencePageTypes } from './infrastructure/openapi/reference-page-types.js';
import type { Runtime } from './infrastructure/runtime/runtime.js';

/**
 * The longest path segment the router matches. Fastify's default (100) would answer a longer one
 * with its own 404 before any route; a path's length is bounded by Node's header limit instead,
 * and a long id reaches its route, which answers the resource's own 404.
 */
const MAX_PATH_SEGMENT = 16 * 1024;

/**
 * The Nest HTTP application over a started runtime: /v1 routes, errors, validation, OpenAPI.
 * On Fastify (decision 0036), configured to answer as the service always has on Express: Node's
 * own server timeouts and answers to unparsable requests, case-insensitive routes with an optional
 * trailing slash, Node's query string parser, no 503 while closing, bodies read by the service's own reader.
 */
export async function createHttpApp(runtime: Runtime): Promise<INestApplication> {
  const openApiDocument: { current: unknown } = { current: null };
  const edgeErrors = new HttpErrorFilter(runtime.log);
  const adapter = new FastifyAdapter({
    keepAliveTimeout: 5_000,
    requestTimeout: 300_000,
    return503OnClosing: false,
    genReqId: requestIdOf,
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => edgeErrors.answer(error, request, reply),
    // No Nest middleware: the edge is Fastify hooks (request context, body, metrics).
    skipMiddie: true,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PATH_SEGMENT, querystringParser: (text: string) => querystring.parse(text) },
  });
  const fastify = adapter.getInstance();
  // Node's own answer to a request it cannot parse (400, 431, 408, with Connection: close, so a
  // keep-alive client does not reuse the socket), rather than Fastify's, which says nothing of closing.
  fastify.server.removeAllListeners('clientError');
  installHttpMetrics(fastify, runtime.metrics, bodyWasRefused);
  installRequestContext(fastify, runtime.log);
  installRequestBody(fastify);
  installEntityTags(fastify);
  installIdempotency(fastify, runtime.database.pool, runtime.log);
  keepReferencePageTypes(fastify, '/v1/docs');
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRuntime(runtime, openApiDocument), adapter, {
    logger: new PinoNestLogger(runtime.log),
    bodyParser: false,
  });
  // Browser sign-in lives on the service origin outside the versioned API (the spec's {auth_url}/api/auth);
  // the root and /settings are pages for people (what the service is, the brokerage portal's default return; the user's API keys).
  app.setGlobalPrefix('v1', { exclude: ['health', 'api/auth/{*path}', '/', 'settings', 'settings/settings.js'] });
  const document = buildOpenApiDocument(app, runtime.config.publicUrl);
  openApiDocument.current = document;
  SwaggerModule.setup('v1/docs', app, document, { raw: false, customSiteTitle: 'Ledgerline API reference', swaggerOptions: { url: '/v1/openapi.json' } });
  await app.init();
  // Routes and plugins are in place before the server answers (supertest and the raw client listen on it directly).
  await fastify.ready();
  return app;
}
