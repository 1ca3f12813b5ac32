import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';

/**
 * The reference for GET /v1/accounts: NestJS on the Express adapter (the goal is stated against it;
 * the service runs on Fastify, decision 0036), with one GET answering a constant small JSON. PORT is
 * the port to listen on, on 127.0.0.1.
 */
const HELLO = { message: 'hello', ok: true } as const;

@Controller()
class HelloController {
  @Get('hello')
  hello(): typeof HELLO {
    return HELLO;
  }
}

@Module({ controllers: [HelloController] })
class HelloModule {}

const app = await NestFactory.create<NestExpressApplication>(HelloModule, { logger: false });
// The service sends neither header; the reference should not do work the service does not.
app.disable('x-powered-by');
app.set('etag', false);
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
