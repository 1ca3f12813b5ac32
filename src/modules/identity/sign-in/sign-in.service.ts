import type { Kysely } from 'kysely';
import OAuth2Strategy from 'passport-oauth2';
import type { Logger } from 'pino';
import type { AppConfig } from '../../../config/config.js';
import type { Clock } from '../../../core/clock.js';
import { DomainRuleError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { User } from '../identity.store.js';
import { signInUser } from '../provider-identity.store.js';
import { sessionLifetime, type SessionLifetime } from '../session.js';
import { type OpenedSession, openSession } from '../session.store.js';
import { ProfileIncompleteError, type ProviderProfile, ProfileUnavailableError } from './provider-profile.js';
import { ProviderStrategy } from './provider-strategy.js';
import { runStrategy } from './run-strategy.js';
import { SignInFlowStore, type SignInRequest } from './sign-in-flow.store.js';

/** Why a sign-in did not finish; the code is sent to the web app as `?error=<code>`. */
export const SIGN_IN_FAILURES = {
  access_denied: 'You declined to sign in at the provider.',
  provider_error: 'The provider refused the sign-in.',
  invalid_state: 'This sign-in is unknown, expired or already used: start again.',
  code_rejected: 'The provider refused the sign-in code (expired or already used): start again.',
  provider_unavailable: 'The provider could not be reached: try again later.',
  profile_incomplete: 'The provider did not say who you are.',
} as const;
export type SignInFailure = keyof typeof SIGN_IN_FAILURES;

export interface CallbackQuery {
  readonly code?: string;
  readonly state?: string;
  readonly error?: string;
}

export type CallbackOutcome =
  | { readonly kind: 'signedIn'; readonly user: User; readonly session: OpenedSession; readonly callbackURL: string }
  | { readonly kind: 'failed'; readonly failure: SignInFailure; readonly callbackURL: string | null };

/** The token exchange and the profile together; a provider slower than this is "unavailable". */
const PROVIDER_TIMEOUT_MS = 20_000;
const CODE_REFUSALS = new Set(['invalid_grant', 'invalid_request']);
const OUTAGES = new Set(['server_error', 'temporarily_unavailable']);

/** OAuth 2.0 sign-in: begin (the provider's authorize URL) and complete (code → user → session). */
export class SignInService {
  private readonly strategies: ReadonlyMap<string, ProviderStrategy>;
  private readonly flows: SignInFlowStore;
  private readonly allowedOrigins: ReadonlySet<string>;
  private readonly trustsEmail: ReadonlySet<string>;
  private readonly sessionLifetime: SessionLifetime;

  constructor(
    config: Pick<AppConfig, 'oauthProviders' | 'publicUrl' | 'allowedCallbackOrigins' | 'sessionMaxLifetimeDays'>,
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.flows = new SignInFlowStore(db, clock);
    this.strategies = new Map(config.oauthProviders.map((provider) => [provider.name, new ProviderStrategy(provider, config.publicUrl, this.flows)]));
    // The service's own origin too: its settings page signs in there (decision 0048). A return to
    // the origin that runs the sign-in opens no redirect to anywhere else.
    this.allowedOrigins = new Set([new URL(config.publicUrl).origin, ...config.allowedCallbackOrigins]);
    this.trustsEmail = new Set(config.oauthProviders.filter((provider) => provider.trustEmail).map((provider) => provider.name));
    this.sessionLifetime = sessionLifetime(config.sessionMaxLifetimeDays);
  }

  get providers(): string[] {
    return [...this.strategies.keys()];
  }

  /** The provider's authorize URL for a sign-in bound to the browser holding `browserBinding`. */
  async begin(provider: string, callbackURL: string, browserBinding: string): Promise<string> {
    const strategy = this.strategyFor(provider);
    const request: SignInRequest = { query: {}, body: {}, provider, callbackURL: this.allowedCallback(callbackURL), browserBinding };
    const outcome = await runStrategy(strategy, request, {}, PROVIDER_TIMEOUT_MS);
    if (outcome.kind === 'redirect') return outcome.url;
    throw outcome.kind === 'error' ? outcome.error : new Error(`The sign-in could not begin (${outcome.kind}).`);
  }

  /** `browserBinding` is the pf_sign_in cookie of the browser that came back (null: none). */
  async complete(provider: string, query: CallbackQuery, browserBinding: string | null): Promise<CallbackOutcome> {
    const strategy = this.strategyFor(provider);
    if (query.error || !query.code) {
      // The flow is used up either way: the web app learns why, if we know where it is.
      const flow = await this.flows.consume(provider, query.state, browserBinding);
      const failure = query.error === 'access_denied' ? 'access_denied' : query.error ? 'provider_error' : flow ? 'provider_error' : 'invalid_state';
      return this.failed(provider, failure, flow?.callbackURL ?? null, query.error ? `the provider answered ${query.error}` : 'no code');
    }
    const request: SignInRequest = { query: { code: query.code, state: query.state ?? '' }, body: {}, provider, browserBinding };
    const outcome = await runStrategy(strategy, request, {}, PROVIDER_TIMEOUT_MS);
    const callbackURL = request.callbackURL ?? null;
    switch (outcome.kind) {
      case 'success': {
        const now = this.clock.now();
        const user = await signInUser(this.db, provider, outcome.user as ProviderProfile, now, { trustEmail: this.trustsEmail.has(provider) });
        const session = await openSession(this.db, user.id, now, this.sessionLifetime);
        this.log.info({ provider, userId: user.id }, 'signed in');
        return { kind: 'signedIn', user, session, callbackURL: callbackURL as string };
      }
      case 'fail':
        return this.failed(provider, callbackURL ? 'profile_incomplete' : 'invalid_state', callbackURL, 'the strategy refused');
      case 'timeout':
        return this.failed(provider, 'provider_unavailable', callbackURL, `no answer within ${PROVIDER_TIMEOUT_MS} ms`);
      case 'error': {
        const failure = failureOf(outcome.error);
        if (!failure) throw outcome.error;
        return this.failed(provider, failure, callbackURL, describe(outcome.error));
      }
      case 'redirect':
        throw new Error('The strategy began a new sign-in while completing one.');
    }
  }

  private failed(provider: string, failure: SignInFailure, callbackURL: string | null, reason: string): CallbackOutcome {
    this.log.warn({ provider, failure, reason }, 'sign-in failed');
    return { kind: 'failed', failure, callbackURL };
  }

  private strategyFor(provider: string): ProviderStrategy {
    const strategy = this.strategies.get(provider);
    if (!strategy) {
      const known = this.providers.length > 0 ? `use one of ${this.providers.join(', ')}` : 'no sign-in provider is configured';
      throw new DomainRuleError('UNKNOWN_PROVIDER', `Unknown provider "${provider.slice(0, 50)}": ${known}.`);
    }
    return strategy;
  }

  /**
   * The callbackURL as the browser will be sent to it, or 400. Only printable ASCII: a URL parser
   * quietly drops tabs and line breaks and encodes the rest, so what was checked could differ from
   * what a header would carry; clients percent-encode anything else. The stored form is the
   * parsed one, so the redirect goes exactly where the origin check looked.
   */
  private allowedCallback(callbackURL: string): string {
    const refuse = (why: string) => new DomainRuleError('CALLBACK_URL_NOT_ALLOWED', `callbackURL ${why}.`);
    if (!/^[\x21-\x7e]+$/.test(callbackURL)) throw refuse('must be printable ASCII without spaces (percent-encode anything else)');
    let url: URL;
    try {
      url = new URL(callbackURL);
    } catch {
      throw refuse('must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must be an absolute http(s) URL');
    if (url.username || url.password) throw refuse('must not carry a user name or password');
    if (!this.allowedOrigins.has(url.origin)) throw refuse("must be on the service's own origin (PUBLIC_URL) or one of the allowed callback origins (ALLOWED_CALLBACK_ORIGINS)");
    return url.href;
  }
}

/** Which failures are the provider's (a clear answer to the browser) and which are ours (a 500). */
function failureOf(error: unknown): SignInFailure | null {
  if (error instanceof ProfileIncompleteError) return 'profile_incomplete';
  if (error instanceof ProfileUnavailableError) return 'provider_unavailable';
  if (error instanceof OAuth2Strategy.TokenError) return OUTAGES.has(error.code) ? 'provider_unavailable' : CODE_REFUSALS.has(error.code) ? 'code_rejected' : 'provider_error';
  if (error instanceof OAuth2Strategy.AuthorizationError) return 'provider_error';
  if (error instanceof OAuth2Strategy.InternalOAuthError) {
    const status = (error.oauthError as { statusCode?: unknown } | undefined)?.statusCode;
    return typeof status === 'number' && status < 500 ? 'provider_error' : 'provider_unavailable';
  }
  // passport-oauth2's words when the token endpoint answered 200 without a token.
  if (error instanceof Error && error.message === 'Failed to obtain access token') return 'provider_error';
  return null;
}

/** Enough to diagnose, nothing secret: no token, code or response body. */
function describe(error: unknown): string {
  if (error instanceof OAuth2Strategy.TokenError) return `token endpoint: ${error.code}`;
  if (error instanceof OAuth2Strategy.InternalOAuthError) {
    const cause = error.oauthError as { statusCode?: number; code?: string } | undefined;
    return `${error.message} (${cause?.statusCode ?? cause?.code ?? 'no response'})`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function failureMessage(failure: SignInFailure): string {
  return SIGN_IN_FAILURES[failure];
}
