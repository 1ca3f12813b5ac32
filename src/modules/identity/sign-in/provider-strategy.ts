import OAuth2Strategy from 'passport-oauth2';
import type { OAuthProviderConfig } from '../../../config/oauth-providers.js';
import { loadProviderProfile } from './provider-profile.js';
import type { SignInFlowStore } from './sign-in-flow.store.js';

/**
 * passport-oauth2 for one configured provider: authorization code with `state` and PKCE (S256)
 * on every flow, kept by the sign-in flow store, and the profile read by the provider's dialect.
 * The verify step only hands the profile on: the provider's tokens are dropped right there.
 */
export class ProviderStrategy extends OAuth2Strategy {
  constructor(
    private readonly provider: OAuthProviderConfig,
    publicUrl: string,
    flows: SignInFlowStore,
  ) {
    super(
      {
        authorizationURL: provider.authorizationUrl,
        tokenURL: provider.tokenUrl,
        clientID: provider.clientId,
        clientSecret: provider.clientSecret,
        callbackURL: callbackUrlOf(publicUrl, provider.name),
        scope: provider.scope,
        pkce: true,
        state: true,
        store: flows as unknown as OAuth2Strategy.StateStore,
        customHeaders: { Accept: 'application/json', 'User-Agent': 'Ledgerline' },
      },
      (_accessToken: string, _refreshToken: string, profile: unknown, done: OAuth2Strategy.VerifyCallback) => done(null, profile as Express.User),
    );
    this.name = provider.name;
  }

  override userProfile(accessToken: string, done: (error?: unknown, profile?: unknown) => void): void {
    loadProviderProfile(this.provider, accessToken).then(
      (profile) => done(null, profile),
      (error: unknown) => done(error),
    );
  }
}

/** The redirect URI to register at the provider. */
export function callbackUrlOf(publicUrl: string, provider: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/api/auth/callback/${encodeURIComponent(provider)}`;
}
