import { randomBytes } from 'node:crypto';
import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../../config/config.js';
import type { Clock } from '../../../core/clock.js';
import { Public } from '../../../infrastructure/http/api-key.guard.js';
import { QueryFromProvider } from '../../../infrastructure/http/query-keys.interceptor.js';
import { readSessionCookie, type SessionCookiePolicy, setSessionCookie } from '../../../infrastructure/http/session-cookie.js';
import { CLOCK, CONFIG } from '../../../infrastructure/runtime/tokens.js';
import type { IdentityAuthenticator } from '../identity.authenticator.js';
import { AUTHENTICATOR, SESSION_COOKIE_POLICY, SIGN_IN_SERVICE } from '../identity.tokens.js';
import type { SignInService } from '../sign-in/sign-in.service.js';
import { signedInPage, signedOutPage } from './settings-page.html.js';
import { readSettingsPageScript } from './settings-page.script.js';

/**
 * Only the script and the style that carry this response's nonce; the script talks to this origin
 * alone; no HTML string reaches the DOM (Trusted Types); no frame, form post or <base> (decision 0048).
 */
export function settingsPageSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join('; ');
}

/**
 * The settings area the spec speaks of ("API keys issued by the user from a settings area"): a page
 * for people, outside /v1 and the OpenAPI document like `/`. It reads the session cookie itself (a
 * visitor without one is offered the sign-in, not a 401); the keys are the script's to fetch
 * through the /v1 API-key operations, under the API's own session and cross-site rules.
 */
@ApiExcludeController()
@Controller('settings')
export class SettingsPageHttpController {
  private readonly clientScript = readSettingsPageScript();
  private readonly callbackURL: string;

  constructor(
    @Inject(AUTHENTICATOR) private readonly authenticator: IdentityAuthenticator,
    @Inject(SIGN_IN_SERVICE) private readonly signIn: SignInService,
    @Inject(SESSION_COOKIE_POLICY) private readonly cookiePolicy: SessionCookiePolicy,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) config: AppConfig,
  ) {
    this.callbackURL = `${config.publicUrl.replace(/\/+$/, '')}/settings`;
  }

  @Get()
  @Public()
  // The sign-in callback writes this page's query on the way back (`error=<code>`).
  @QueryFromProvider()
  async page(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() response: FastifyReply): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    response
      .header('Content-Security-Policy', settingsPageSecurityPolicy(nonce))
      .header('X-Frame-Options', 'DENY')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .header('Cross-Origin-Opener-Policy', 'same-origin')
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8');
    const token = readSessionCookie(request);
    const now = this.clock.now();
    const session = token === null ? null : await this.authenticator.bySession(token, now);
    if (token !== null && session !== null) {
      // Resuming may have extended the session, as any request with the cookie does: the browser hears it.
      if (session.refreshed) setSessionCookie(response, this.cookiePolicy, token, session.principal.credential.expiresAt, now);
      await response.code(200).send(signedInPage({ nonce, user: session.principal.user }));
      return;
    }
    const failure = typeof query.error === 'string' ? query.error : null;
    await response.code(200).send(signedOutPage({ nonce, providers: this.signIn.providers, callbackURL: this.callbackURL, failure }));
  }

  @Get('settings.js')
  @Public()
  async script(@Res() response: FastifyReply): Promise<void> {
    await response.header('X-Content-Type-Options', 'nosniff').header('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8').code(200).send(this.clientScript);
  }
}
