import type { Kysely } from 'kysely';
import type { AppConfig } from '../../config/config.js';
import type { Clock } from '../../core/clock.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { AccessTokenSealer, loadAccessTokenKey } from '../link/provider/access-token-sealer.js';
import { createSandboxMarket } from '../quotes/sandbox-market/index.js';
import type { BrokerageLinkProvider } from './brokerage-link.port.js';
import { createPersistentSandboxBrokerage, type PersistentSandboxBrokerage } from './provider/persistent-sandbox-brokerage.js';
import { createSnapTradeBrokerage } from './provider/snaptrade/snaptrade-brokerage.js';

export const BROKERAGE_LINK = Symbol('BrokerageLink');

/** The sandbox's connection portal, a page of the service itself (GET, no credential: a browser opens it). */
export const SANDBOX_PORTAL_PATH = '/v1/sandbox/brokerage/portal';
/** Where a real provider's portal sends the browser back: the service asks the provider what was connected. */
export const PORTAL_RETURN_PATH = '/v1/brokerage/portal/return';

/** The configured brokerage-link provider, its sandbox controls when it is the sandbox, and the sealer of its user secrets. */
export interface BrokerageLink {
  readonly providerName: string;
  /** Null when BROKERAGE_LINK_PROVIDER=none. */
  readonly provider: BrokerageLinkProvider | null;
  /** Only while the sandbox is the configured provider: the sandbox operations exist only then. */
  readonly sandbox: PersistentSandboxBrokerage | null;
  readonly sealer: AccessTokenSealer;
  /** BROKERAGE_RETURN_URL: where the browser goes once the connection is recorded. */
  readonly returnUrl: string;
  /** `$PUBLIC_URL/v1/brokerage/portal/return`: where a real provider's portal sends the browser first. */
  readonly portalReturnUrl: string;
}

/**
 * The sandbox prices holdings in the default sandbox market, the one the quote operation serves,
 * so a position's price is the quote's. The user secrets are sealed with the access tokens' key.
 */
export async function createBrokerageLink(config: AppConfig, db: Kysely<Database>, clock: Clock): Promise<BrokerageLink> {
  const sealer = new AccessTokenSealer(await loadAccessTokenKey(config.linkTokenKey, config.dataDir));
  const returnUrl = config.brokerageReturnUrl;
  const publicUrl = config.publicUrl.replace(/\/+$/, '');
  const portalReturnUrl = `${publicUrl}${PORTAL_RETURN_PATH}`;
  if (config.brokerageLinkProvider === 'none') return { providerName: 'none', provider: null, sandbox: null, sealer, returnUrl, portalReturnUrl };
  if (config.brokerageLinkProvider === 'snaptrade') {
    const snapTrade = config.snapTrade;
    if (snapTrade === null) throw new Error('BROKERAGE_LINK_PROVIDER=snaptrade without its settings: loadConfig refuses that');
    const provider = createSnapTradeBrokerage({ clientId: snapTrade.clientId, consumerKey: snapTrade.consumerKey, basePath: snapTrade.baseUrl, clock });
    return { providerName: 'snaptrade', provider, sandbox: null, sealer, returnUrl, portalReturnUrl };
  }
  const sandbox = createPersistentSandboxBrokerage(db, { clock, market: createSandboxMarket(), portalUrl: `${publicUrl}${SANDBOX_PORTAL_PATH}` });
  return { providerName: 'sandbox', provider: sandbox, sandbox, sealer, returnUrl, portalReturnUrl };
}
