import path from 'node:path';
import { ConfigError } from './config-error.js';
import { loadOAuthProviders, type OAuthProviderConfig } from './oauth-providers.js';
import { type AlphaVantageConfig, loadAlphaVantageConfig, loadPlaidConfig, loadSnapTradeConfig, type PlaidConfig, type SnapTradeConfig } from './provider-credentials.js';

export { ConfigError } from './config-error.js';
export type { OAuthProviderConfig } from './oauth-providers.js';
export type { AlphaVantageConfig, PlaidConfig, SnapTradeConfig } from './provider-credentials.js';

/** Everything the service reads from its environment, validated once at start. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  /** Prometheus `GET /metrics` on a listener of its own (docs/decisions/0021); null: no listener. 0: a port the OS picks. */
  readonly metricsPort: number | null;
  /** Interface of the metrics listener: loopback unless an operator opens it. */
  readonly metricsHost: string;
  /** Absent: the service runs its own PostgreSQL under `dataDir` (the embedded default). */
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  readonly eventStoreUrl: string | null;
  readonly dataDir: string;
  readonly embeddedPostgresPort: number;
  /**
   * The superuser password of a DATA_DIR an older release made (before decision 0030), given once to
   * upgrade it to generated passwords; absent: such a DATA_DIR is refused with a sentence saying so.
   */
  readonly embeddedPostgresUpgradePassword: string | null;
  readonly publicUrl: string;
  readonly allowedCallbackOrigins: readonly string[];
  readonly logLevel: LogLevel;
  readonly nodeEnv: string;
  /** How long a write's response may wait for its read models (read-your-writes). */
  readonly readYourWritesTimeoutMs: number;
  /** Requests per user per minute; 0 turns rate limiting off. */
  readonly rateLimitPerMinute: number;
  /** Sign-in starts and callbacks per client IP per minute (unauthenticated, so counted by address); 0 turns it off. */
  readonly signInRateLimitPerMinute: number;
  /** A session ends this many days after sign-in however active it is (sliding refresh stops there). */
  readonly sessionMaxLifetimeDays: number;
  /** Verified API keys kept in memory, invalidated by NOTIFY (docs/decisions/0023); 0 (the default) reads every key from the database, so a revocation holds on every instance the moment it commits. */
  readonly apiKeyCacheSize: number;
  /** Sign-in providers from `OAUTH_<NAME>_*`; none configured leaves API keys as the only credential. */
  readonly oauthProviders: readonly OAuthProviderConfig[];
  /** The bank-link provider behind the port; `sandbox` also serves the sandbox operations, `none` turns linking off. */
  readonly bankLinkProvider: BankLinkProviderName;
  /** PLAID_*: present exactly when the bank-link provider is Plaid. */
  readonly plaid: PlaidConfig | null;
  /** 32 bytes sealing the providers' access tokens; absent: a key generated and kept in `dataDir`. */
  readonly linkTokenKey: Buffer | null;
  /** 32 bytes the sandbox bank-link provider signs its webhooks with (and the receiver verifies them with); absent: generated and kept in `dataDir`. */
  readonly sandboxWebhookSecret: Buffer | null;
  /** Every linked item is synced this often without being asked (minutes, at most a day); 0 turns it off. */
  readonly bankLinkSyncIntervalMinutes: number;
  /** Transaction changes of one user within this window share one recurring-stream refresh, run when it ends (ms). */
  readonly recurringRefreshDebounceMs: number;
  /** The market-quote provider behind the quote port; `none` turns quotes off (503 QUOTE_PROVIDER_NOT_CONFIGURED). */
  readonly quoteProvider: QuoteProviderName;
  /** ALPHA_VANTAGE_*: present exactly when the quote provider is Alpha Vantage. */
  readonly alphaVantage: AlphaVantageConfig | null;
  /** How long a quote, or a symbol's absence, is answered from the cache (seconds). */
  readonly quoteCacheTtlSeconds: number;
  /** A call to the quote provider that has not answered by then fails: 503 QUOTE_PROVIDER_UNAVAILABLE. */
  readonly quoteProviderTimeoutMs: number;
  /** The brokerage-link provider behind the port; `sandbox` also serves the sandbox brokerage operations, `none` turns connecting off. */
  readonly brokerageLinkProvider: BrokerageLinkProviderName;
  /** SNAPTRADE_*: present exactly when the brokerage-link provider is SnapTrade. */
  readonly snapTrade: SnapTradeConfig | null;
  /** Where the connection portal sends the browser back, with `brokerageAuthorizationId` and `status` added to its query. */
  readonly brokerageReturnUrl: string;
  /** Every brokerage authorization is synced (and its accounts snapshotted) this often without being asked (minutes, at most a day); 0 turns it off. */
  readonly brokerageSyncIntervalMinutes: number;
  /** Webhook URLs may resolve to loopback, private or link-local addresses (development and tests only). */
  readonly webhookAllowPrivateUrls: boolean;
  /** The first retry of a failed webhook delivery waits this long; each next one twice as long (ms). */
  readonly webhookRetryBaseMs: number;
  /** A webhook endpoint that has not answered by then has failed that attempt (ms). */
  readonly webhookTimeoutMs: number;
  /** Endpoints this process sends to at once: a slow endpoint holds one of them, never another's queue. */
  readonly webhookConcurrency: number;
}

export const BANK_LINK_PROVIDERS = ['sandbox', 'plaid', 'none'] as const;
export type BankLinkProviderName = (typeof BANK_LINK_PROVIDERS)[number];

export const BROKERAGE_LINK_PROVIDERS = ['sandbox', 'snaptrade', 'none'] as const;
export type BrokerageLinkProviderName = (typeof BROKERAGE_LINK_PROVIDERS)[number];

export const QUOTE_PROVIDERS = ['sandbox', 'alphavantage', 'none'] as const;
export type QuoteProviderName = (typeof QUOTE_PROVIDERS)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const allowedCallbackOrigins = origins(env, 'ALLOWED_CALLBACK_ORIGINS');
  const oauthProviders = loadOAuthProviders(env);
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  const bankLinkProvider = oneOf(env, 'BANK_LINK_PROVIDER', BANK_LINK_PROVIDERS, 'sandbox');
  const quoteProvider = oneOf(env, 'QUOTE_PROVIDER', QUOTE_PROVIDERS, 'sandbox');
  const brokerageLinkProvider = oneOf(env, 'BROKERAGE_LINK_PROVIDER', BROKERAGE_LINK_PROVIDERS, 'sandbox');
  return {
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    metricsPort: env.METRICS_PORT?.trim() ? integer(env, 'METRICS_PORT', 0, 0, 65535) : null,
    metricsHost: env.METRICS_HOST?.trim() || '127.0.0.1',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    eventStoreUrl: url(env, 'EVENTSTORE_URL', ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrent:']),
    dataDir: path.resolve(env.DATA_DIR?.trim() || 'data'),
    embeddedPostgresPort: integer(env, 'EMBEDDED_POSTGRES_PORT', 54329, 1, 65535),
    embeddedPostgresUpgradePassword: env.EMBEDDED_POSTGRES_UPGRADE_PASSWORD || null,
    publicUrl,
    allowedCallbackOrigins,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    nodeEnv: env.NODE_ENV?.trim() || 'development',
    readYourWritesTimeoutMs: integer(env, 'READ_YOUR_WRITES_TIMEOUT_MS', 5000, 0, 60000),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, 0, 1_000_000),
    signInRateLimitPerMinute: integer(env, 'SIGN_IN_RATE_LIMIT_PER_MINUTE', 30, 0, 1_000_000),
    sessionMaxLifetimeDays: integer(env, 'SESSION_MAX_LIFETIME_DAYS', 90, 1, 3650),
    apiKeyCacheSize: integer(env, 'API_KEY_CACHE_SIZE', 10_000, 0, 1_000_000),
    oauthProviders,
    bankLinkProvider,
    plaid: loadPlaidConfig(env, bankLinkProvider === 'plaid'),
    linkTokenKey: key32(env, 'LINK_TOKEN_KEY'),
    sandboxWebhookSecret: key32(env, 'SANDBOX_WEBHOOK_SECRET'),
    bankLinkSyncIntervalMinutes: integer(env, 'BANK_LINK_SYNC_INTERVAL_MINUTES', 60, 0, 1440),
    recurringRefreshDebounceMs: integer(env, 'RECURRING_REFRESH_DEBOUNCE_MS', 5000, 0, 600_000),
    quoteProvider,
    alphaVantage: loadAlphaVantageConfig(env, quoteProvider === 'alphavantage'),
    quoteCacheTtlSeconds: integer(env, 'QUOTE_CACHE_TTL_SECONDS', 15, 1, 3600),
    quoteProviderTimeoutMs: integer(env, 'QUOTE_PROVIDER_TIMEOUT_MS', 2000, 1, 60000),
    brokerageLinkProvider,
    snapTrade: loadSnapTradeConfig(env, brokerageLinkProvider === 'snaptrade'),
    brokerageReturnUrl: url(env, 'BROKERAGE_RETURN_URL', ['http:', 'https:']) ?? `${publicUrl.replace(/\/+$/, '')}/`,
    brokerageSyncIntervalMinutes: integer(env, 'BROKERAGE_SYNC_INTERVAL_MINUTES', 1440, 0, 1440),
    webhookAllowPrivateUrls: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256),
  };
}

/** 32 bytes, written as base64 (44 characters) or hex (64). */
function key32(env: NodeJS.ProcessEnv, name: string): Buffer | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : /^[A-Za-z0-9+/]{43}=$/.test(raw) ? Buffer.from(raw, 'base64') : null;
  if (key === null || key.length !== 32) {
    throw new ConfigError(`${name} must be 32 random bytes written as base64 (44 characters) or hex (64), for example the output of "openssl rand -base64 32".`);
  }
  return key;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name]?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}".`);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: readonly string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')}//...), got something that is not one.`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}, got "${parsed.protocol}//".`);
  }
  return raw;
}

function origins(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const trimmed = entry.trim();
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of origins such as https://app.example.com, got "${trimmed}".`);
    }
    return parsed.origin;
  });
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}".`);
  }
  return raw as T;
}
