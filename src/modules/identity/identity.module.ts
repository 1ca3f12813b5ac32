import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { CredentialsGuard } from '../../infrastructure/http/api-key.guard.js';
import { SameOriginPolicy } from '../../infrastructure/http/same-origin.js';
import { sessionCookiePolicy } from '../../infrastructure/http/session-cookie.js';
import { MemoryRateLimitStore, RateLimiter } from '../../infrastructure/rate-limit/rate-limiter.js';
import { RedisRateLimitStore } from '../../infrastructure/rate-limit/redis-rate-limit.store.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { CLOCK, CONFIG, DATABASE } from '../../infrastructure/runtime/tokens.js';
import { ApiKeysHttpController } from './http/api-keys.http-controller.js';
import { AuthHttpController } from './http/auth.http-controller.js';
import { CachedApiKeys, DEFAULT_API_KEY_CACHE_TTL_MS } from './api-key-cache/cached-api-keys.js';
import { IdentityAuthenticator } from './identity.authenticator.js';
import { AUTHENTICATOR, RATE_LIMITER, SAME_ORIGIN_POLICY, SESSION_COOKIE_POLICY, SIGN_IN_RATE_LIMITER, SIGN_IN_SERVICE } from './identity.tokens.js';
import { sessionLifetime } from './session.js';
import { SettingsPageHttpController } from './settings-page/settings-page.http-controller.js';
import { SignInService } from './sign-in/sign-in.service.js';

/** Who is calling: sign-in, sessions, API keys (and the settings page that manages them), and the global guard with its rate limit. */
@Module({})
export class IdentityModule {
  static forRuntime(runtime: Runtime): DynamicModule {
    const { config, clock, log } = runtime;
    const db = runtime.database.db;
    return {
      module: IdentityModule,
      controllers: [AuthHttpController, ApiKeysHttpController, SettingsPageHttpController],
      providers: [
        { provide: DATABASE, useValue: db },
        { provide: CLOCK, useValue: clock },
        { provide: CONFIG, useValue: config },
        { provide: SIGN_IN_SERVICE, useFactory: () => new SignInService(config, db, clock, log) },
        {
          provide: AUTHENTICATOR,
          useFactory: () => {
            const cached = config.apiKeyCacheSize > 0 ? new CachedApiKeys(db, runtime.database.pool, { limits: { maxEntries: config.apiKeyCacheSize, ttlMs: DEFAULT_API_KEY_CACHE_TTL_MS }, log }) : null;
            return new IdentityAuthenticator(db, sessionLifetime(config.sessionMaxLifetimeDays), cached);
          },
        },
        { provide: SAME_ORIGIN_POLICY, useValue: new SameOriginPolicy(config.publicUrl, config.allowedCallbackOrigins) },
        { provide: SESSION_COOKIE_POLICY, useValue: sessionCookiePolicy(config.publicUrl) },
        {
          provide: RATE_LIMITER,
          useFactory: async () => {
            if (config.rateLimitPerMinute === 0) return null;
            const store = config.redisUrl ? await RedisRateLimitStore.open(config.redisUrl) : new MemoryRateLimitStore();
            return new RateLimiter(store, config.rateLimitPerMinute, clock, log);
          },
        },
        {
          // Its own store (and Redis keys), so each limiter closes only what it opened.
          provide: SIGN_IN_RATE_LIMITER,
          useFactory: async () => {
            if (config.signInRateLimitPerMinute === 0) return null;
            const store = config.redisUrl ? await RedisRateLimitStore.open(config.redisUrl, 'ledgerline:sign-in-limit:') : new MemoryRateLimitStore();
            return new RateLimiter(store, config.signInRateLimitPerMinute, clock, log);
          },
        },
        {
          provide: APP_GUARD,
          useFactory: (reflector: Reflector, authenticator: IdentityAuthenticator, sameOrigin: SameOriginPolicy, cookiePolicy: ReturnType<typeof sessionCookiePolicy>, rateLimiter: RateLimiter | null) =>
            new CredentialsGuard(reflector, { authenticator, clock, sameOrigin, cookiePolicy, rateLimiter }),
          inject: [Reflector, AUTHENTICATOR, SAME_ORIGIN_POLICY, SESSION_COOKIE_POLICY, RATE_LIMITER],
        },
      ],
    };
  }
}
