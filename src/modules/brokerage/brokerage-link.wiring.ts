import type { Kysely } from 'kysely';
import type { AppConfig } from '../../config/config.js';
import type { Clock } from '../../core/clock.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { AccessTokenSealer, loadAccessTokenKey } from '../link/provider/access-token-sealer.js';
import { createSandboxMarket } from '../quotes/sandbox-market/index.js';
import type { BrokerageLinkProvider } from './brokerage-link.port.js';
import { createPersistentSandboxBrokerage, type PersistentSandboxBrokerage } from './provider/persistent-sandbox-brokerage.js';

export const BROKERAGE_LINK = Symbol('BrokerageLink');

/** The sandbox's connection portal, a page of the service itself (GET, no credential: a browser opens it). */
export const SANDBOX_PORTAL_PATH = '/v1/sandbox/brokerage/portal';

/** The configured brokerage-link provider, its sandbox controls when it is the sandbox, and the sealer of its user secrets. */
export interface BrokerageLink {
  readonly providerName: string;
  /** Null when BROKERAGE_LINK_PROVIDER=none. */
  readonly provider: BrokerageLinkProvider | null;
  /** Only while the sandbox is the configured provider: the sandbox operations exist only then. */
  readonly sandbox: PersistentSandboxBrokerage | null;
  readonly sealer: AccessTokenSealer;
  /** BROKERAGE_RETURN_URL: where the portal sends the browser back. */
  readonly returnUrl: string;
}

/**
 * The sandbox prices holdings in the default sandbox market, the one the quote operation serves,
 * so a position's price is the quote's. The user secrets are sealed with the access tokens' key.
 */
export async function createBrokerageLink(config: AppConfig, db: Kysely<Database>, clock: Clock): Promise<BrokerageLink> {
  const sealer = new AccessTokenSealer(await loadAccessTokenKey(config.linkTokenKey, config.dataDir));
  const returnUrl = config.brokerageReturnUrl;
  if (config.brokerageLinkProvider === 'none') return { providerName: 'none', provider: null, sandbox: null, sealer, returnUrl };
  if (config.brokerageLinkProvider === 'snaptrade') throw new Error('BROKERAGE_LINK_PROVIDER=snaptrade is not wired yet');
  const portalUrl = `${config.publicUrl.replace(/\/+$/, '')}${SANDBOX_PORTAL_PATH}`;
  const sandbox = createPersistentSandboxBrokerage(db, { clock, market: createSandboxMarket(), portalUrl });
  return { providerName: 'sandbox', provider: sandbox, sandbox, sealer, returnUrl };
}
