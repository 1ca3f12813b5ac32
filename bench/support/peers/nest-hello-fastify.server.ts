import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * NestJS hello world on the Fastify adapter: nest-hello.server's twin, so what the adapter alone
 * buys is measured beside the Express one. Fastify sends neither X-Powered-By nor an ETag.
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

const app = await NestFactory.create<NestFastifyApplication>(HelloModule, new FastifyAdapter(), { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
