import type { AppConfig } from '../../config/config.js';
import { AccessTokenSealer, loadAccessTokenKey } from '../link/provider/access-token-sealer.js';

/**
 * An endpoint's signing secret must be given back to sign every delivery, so it is kept sealed
 * (AES-256-GCM under LINK_TOKEN_KEY, like the providers' access tokens), bound to its endpoint: a
 * sealed secret copied onto another row does not open.
 */
export class WebhookSecrets {
  private constructor(private readonly sealer: AccessTokenSealer) {}

  static async load(config: Pick<AppConfig, 'linkTokenKey' | 'dataDir'>): Promise<WebhookSecrets> {
    return new WebhookSecrets(new AccessTokenSealer(await loadAccessTokenKey(config.linkTokenKey, config.dataDir)));
  }

  seal(secret: string, endpointId: string): Buffer {
    return this.sealer.seal(secret, BOUND_TO, endpointId);
  }

  open(sealed: Buffer, endpointId: string): string {
    return this.sealer.open(sealed, BOUND_TO, endpointId);
  }
}

const BOUND_TO = 'webhook-endpoint';

export const WEBHOOK_SECRETS = Symbol('WebhookSecrets');
