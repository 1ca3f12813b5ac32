import { type DynamicModule, Module } from '@nestjs/common';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { QuotesHttpController } from './http/quotes.http-controller.js';
import { createQuotes, QUOTES, replacedQuoteProvider } from './quotes.wiring.js';

/** Market quotes over HTTP: the configured provider (or a test's replacement) behind its timeout and the cache. */
@Module({})
export class QuotesModule {
  static forRuntime(runtime: Runtime): DynamicModule {
    return {
      module: QuotesModule,
      controllers: [QuotesHttpController],
      providers: [{ provide: QUOTES, useFactory: () => createQuotes({ config: runtime.config, clock: runtime.clock, log: runtime.log, provider: replacedQuoteProvider(runtime) }) }],
    };
  }
}
