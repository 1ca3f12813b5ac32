import 'reflect-metadata';
import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module.js';
import { carriesJsonBody, MAX_BODY_BYTES, refuseDeepJson } from './infrastructure/http/request-body-limits.js';
import { requestContext } from './infrastructure/http/request-context.middleware.js';
import { PinoNestLogger } from './infrastructure/logging/logger.js';
import { httpMetrics } from './infrastructure/metrics/http-metrics.middleware.js';
import { buildOpenApiDocument } from './infrastructure/openapi/openapi-document.js';
import type { Runtime } from './infrastructure/runtime/runtime.js';

/** The Nest HTTP application over a started runtime: /v1 routes, errors, validation, OpenAPI. */
export async function createHttpApp(runtime: Runtime): Promise<INestApplication> {
  const openApiDocument: { current: unknown } = { current: null };
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRuntime(runtime, openApiDocument), {
    logger: new PinoNestLogger(runtime.log),
    bodyParser: false,
    // The JSON parser below also keeps the bytes it read (req.rawBody): webhook signatures are over them.
    rawBody: true,
  });
  app.disable('x-powered-by');
  // Responses are built per request from read models; a conditional 304 is not part of the contract.
  app.set('etag', false);
  app.use(httpMetrics(runtime.metrics));
  app.use(requestContext(runtime.log));
  app.useBodyParser('json', { limit: MAX_BODY_BYTES, strict: false, type: carriesJsonBody });
  app.use(refuseDeepJson);
  // Browser sign-in lives on the service origin outside the versioned API (the spec's {auth_url}/api/auth);
  // the root is a page for people (what the service is; the brokerage portal's default return).
  app.setGlobalPrefix('v1', { exclude: ['health', 'api/auth/{*path}', '/'] });
  const document = buildOpenApiDocument(app, runtime.config.publicUrl);
  openApiDocument.current = document;
  SwaggerModule.setup('v1/docs', app, document, { raw: false, customSiteTitle: 'Ledgerline API reference', swaggerOptions: { url: '/v1/openapi.json' } });
  await app.init();
  return app;
}
