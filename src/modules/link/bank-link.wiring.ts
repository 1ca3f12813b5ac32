import type { Kysely } from 'kysely';
import type { AppConfig } from '../../config/config.js';
import type { Clock } from '../../core/clock.js';
import type { Database } from '../../infrastructure/database/schema.js';
import type { BankLinkProvider } from './bank-link.port.js';
import { AccessTokenSealer, loadAccessTokenKey } from './provider/access-token-sealer.js';
import { createPersistentSandboxBank, type PersistentSandboxBank } from './provider/persistent-sandbox-bank.js';
import { createPlaidBank } from './provider/plaid/plaid-bank.js';
import { configuredOrKeptKey } from '../../infrastructure/secrets/data-dir-key.js';

/** Where the sandbox's webhook secret is kept when SANDBOX_WEBHOOK_SECRET is not set. */
export const SANDBOX_WEBHOOK_SECRET_FILE = 'sandbox-webhook.key';

export const BANK_LINK = Symbol('BankLink');

/** The configured bank-link provider, its sandbox controls when it is the sandbox, and the sealer of its access tokens. */
export interface BankLink {
  readonly providerName: string;
  /** Null when BANK_LINK_PROVIDER=none. */
  readonly provider: BankLinkProvider | null;
  /** Only while the sandbox is the configured provider: the sandbox operations exist only then. */
  readonly sandbox: PersistentSandboxBank | null;
  readonly sealer: AccessTokenSealer;
}

/** Where a provider delivers the items' webhooks: the service's own receiver. */
export const bankLinkWebhookUrl = (publicUrl: string): string => `${publicUrl.replace(/\/+$/, '')}/v1/webhooks/bank-link`;

export async function createBankLink(config: AppConfig, db: Kysely<Database>, clock: Clock): Promise<BankLink> {
  const sealer = new AccessTokenSealer(await loadAccessTokenKey(config.linkTokenKey, config.dataDir));
  if (config.bankLinkProvider === 'none') return { providerName: 'none', provider: null, sandbox: null, sealer };
  if (config.bankLinkProvider === 'plaid') {
    const plaid = config.plaid;
    if (plaid === null) throw new Error('BANK_LINK_PROVIDER=plaid without its settings: loadConfig refuses that');
    const provider = createPlaidBank({ clientId: plaid.clientId, secret: plaid.secret, basePath: plaid.baseUrl, webhookUrl: bankLinkWebhookUrl(config.publicUrl), countryCodes: plaid.countryCodes });
    return { providerName: 'plaid', provider, sandbox: null, sealer };
  }
  const webhookSecret = await configuredOrKeptKey(config.sandboxWebhookSecret, config.dataDir, SANDBOX_WEBHOOK_SECRET_FILE);
  const sandbox = createPersistentSandboxBank(db, { clock, webhookSecret });
  return { providerName: 'sandbox', provider: sandbox, sandbox, sealer };
}
