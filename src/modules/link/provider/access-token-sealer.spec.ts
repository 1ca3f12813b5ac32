import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AccessTokenSealer, LINK_TOKEN_KEY_FILE, loadAccessTokenKey } from './access-token-sealer.js';

describe('access token sealing', () => {
  const sealer = new AccessTokenSealer(Buffer.alloc(32, 7));

  it('opens what it sealed, and the sealed bytes do not hold the token', () => {
    const sealed = sealer.seal('access-sandbox-secret', 'sandbox', 'item-1');
    expect(sealed.includes(Buffer.from('access-sandbox-secret'))).toBe(false);
    expect(sealer.open(sealed, 'sandbox', 'item-1')).toBe('access-sandbox-secret');
  });

  it('refuses a sealed token moved to another item, and one opened with another key', () => {
    const sealed = sealer.seal('access-sandbox-secret', 'sandbox', 'item-1');
    expect(() => sealer.open(sealed, 'sandbox', 'item-2')).toThrow();
    expect(() => new AccessTokenSealer(Buffer.alloc(32, 8)).open(sealed, 'sandbox', 'item-1')).toThrow();
  });

  it('keeps one generated key in DATA_DIR, private to its owner, unless one is configured', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'link-key-'));
    const [first, second] = await Promise.all([loadAccessTokenKey(null, dataDir), loadAccessTokenKey(null, dataDir)]);
    expect(first.length).toBe(32);
    expect(second.equals(first)).toBe(true);
    expect((await stat(path.join(dataDir, LINK_TOKEN_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(path.join(dataDir, LINK_TOKEN_KEY_FILE), 'utf8')).trim(), 'base64').equals(first)).toBe(true);
    const configured = Buffer.alloc(32, 1);
    expect(await loadAccessTokenKey(configured, dataDir)).toBe(configured);
  });
});
