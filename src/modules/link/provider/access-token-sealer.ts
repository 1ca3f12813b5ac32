import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { configuredOrKeptKey } from '../../../infrastructure/secrets/data-dir-key.js';

/**
 * The service must give an item's access token back to its provider on every sync, so it cannot
 * keep only a hash: it keeps the token sealed (AES-256-GCM) under LINK_TOKEN_KEY, bound to the
 * provider and item it belongs to (a sealed token copied onto another row does not open).
 */
export class AccessTokenSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new RangeError('An access-token key is 32 bytes');
  }

  seal(accessToken: string, provider: string, linkItemId: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(boundTo(provider, linkItemId));
    const sealed = Buffer.concat([cipher.update(accessToken, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  open(sealed: Buffer, provider: string, linkItemId: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12)).setAAD(boundTo(provider, linkItemId));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  }
}

const boundTo = (provider: string, linkItemId: string) => Buffer.from(`${provider}\n${linkItemId}`);

export const LINK_TOKEN_KEY_FILE = 'link-token.key';

/** LINK_TOKEN_KEY when configured; otherwise the key kept in DATA_DIR/link-token.key. */
export function loadAccessTokenKey(configured: Buffer | null, dataDir: string): Promise<Buffer> {
  return configuredOrKeptKey(configured, dataDir, LINK_TOKEN_KEY_FILE);
}
