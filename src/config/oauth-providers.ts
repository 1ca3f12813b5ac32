import { ConfigError } from './config-error.js';

/** How the user's profile is read once the provider has issued an access token. */
export type ProfileDialect = 'oidc' | 'github';

/** One sign-in provider: a preset (google, github) or a generic OAuth 2.0 / OIDC provider. */
export interface OAuthProviderConfig {
  /** The `provider` value clients send: the lower-cased NAME of `OAUTH_<NAME>_*`. */
  readonly name: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  readonly userinfoUrl: string;
  readonly scope: string;
  readonly profileDialect: ProfileDialect;
  /**
   * Whether an address this provider marks verified may sign in as the existing user who has it
   * (and be given to a new user). Only for providers that really own or check the address.
   */
  readonly trustEmail: boolean;
}

type Endpoints = Pick<OAuthProviderConfig, 'authorizationUrl' | 'tokenUrl' | 'userinfoUrl' | 'scope' | 'profileDialect' | 'trustEmail'>;

const PRESETS: Record<string, Endpoints> = {
  google: {
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    scope: 'openid email profile',
    profileDialect: 'oidc',
    // Google is the authority for Gmail and Workspace addresses and says so in email_verified.
    trustEmail: true,
  },
  github: {
    authorizationUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userinfoUrl: 'https://api.github.com/user',
    scope: 'read:user user:email',
    profileDialect: 'github',
    // GitHub checked the address once, perhaps years ago, on a domain that may since have changed hands.
    trustEmail: false,
  },
};

const SETTINGS = ['CLIENT_ID', 'CLIENT_SECRET', 'AUTHORIZATION_URL', 'TOKEN_URL', 'USERINFO_URL', 'SCOPE', 'TRUST_EMAIL'] as const;
type Setting = (typeof SETTINGS)[number];
const VARIABLE = new RegExp(`^OAUTH_([A-Z0-9_]+?)_(${SETTINGS.join('|')})$`);
const DEFAULT_SCOPE = 'openid email profile';

/**
 * Every `OAUTH_<NAME>_<SETTING>` variable, grouped by NAME. A preset needs only the client id
 * and secret (its URLs may still be overridden); any other NAME needs its three URLs.
 */
export function loadOAuthProviders(env: NodeJS.ProcessEnv): OAuthProviderConfig[] {
  const byName = new Map<string, Partial<Record<Setting, string>>>();
  for (const [variable, rawValue] of Object.entries(env)) {
    if (!variable.startsWith('OAUTH_')) continue;
    const value = rawValue?.trim();
    if (!value) continue;
    const match = VARIABLE.exec(variable);
    if (!match) {
      throw new ConfigError(`${variable} is not an OAuth setting: use OAUTH_<NAME>_ followed by one of ${SETTINGS.join(', ')} (NAME in capital letters, digits and _).`);
    }
    const settings = byName.get(match[1]) ?? {};
    settings[match[2] as Setting] = value;
    byName.set(match[1], settings);
  }
  return [...byName.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([upperName, settings]) => providerOf(upperName, settings));
}

function providerOf(upperName: string, settings: Partial<Record<Setting, string>>): OAuthProviderConfig {
  const name = upperName.toLowerCase();
  const preset = PRESETS[name];
  const variable = (setting: Setting) => `OAUTH_${upperName}_${setting}`;
  const required = (setting: Setting): string => {
    const value = settings[setting];
    if (!value) {
      const why = preset ? `the ${name} preset needs its client id and secret` : `a provider that is not a preset (google, github) needs ${SETTINGS.slice(0, 5).map(variable).join(', ')}`;
      throw new ConfigError(`${variable(setting)} is missing: ${why}.`);
    }
    return value;
  };
  const url = (setting: Setting, fallback: string | undefined): string => {
    const value = settings[setting] ?? fallback ?? required(setting);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ConfigError(`${variable(setting)} must be an http:// or https:// URL, got "${value}".`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new ConfigError(`${variable(setting)} must be an http:// or https:// URL, got "${value}".`);
    return value;
  };
  const flag = (setting: Setting, fallback: boolean): boolean => {
    const value = settings[setting]?.toLowerCase();
    if (value === undefined) return fallback;
    if (value !== 'true' && value !== 'false') throw new ConfigError(`${variable(setting)} must be true or false, got "${settings[setting]}".`);
    return value === 'true';
  };
  return {
    name,
    clientId: required('CLIENT_ID'),
    clientSecret: required('CLIENT_SECRET'),
    authorizationUrl: url('AUTHORIZATION_URL', preset?.authorizationUrl),
    tokenUrl: url('TOKEN_URL', preset?.tokenUrl),
    userinfoUrl: url('USERINFO_URL', preset?.userinfoUrl),
    scope: settings.SCOPE ?? preset?.scope ?? DEFAULT_SCOPE,
    profileDialect: preset?.profileDialect ?? 'oidc',
    trustEmail: flag('TRUST_EMAIL', preset?.trustEmail ?? false),
  };
}
