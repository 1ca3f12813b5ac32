import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { configuredOrKeptKey } from './data-dir-key.js';

describe('a key kept in DATA_DIR', () => {
  it('is made once, private to its owner, and every process starting together reads the same one', async () => {
    const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'kept-key-')), 'not-yet-there');
    const keys = await Promise.all(Array.from({ length: 8 }, () => configuredOrKeptKey(null, dataDir, 'some.key')));
    expect(keys[0]).toHaveLength(32);
    for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
    expect((await stat(path.join(dataDir, 'some.key'))).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(path.join(dataDir, 'some.key'), 'utf8')).trim(), 'base64').equals(keys[0]!)).toBe(true);
    // Nothing is left beside it, and a later start reads it again.
    expect(await readdir(dataDir)).toEqual(['some.key']);
    expect((await configuredOrKeptKey(null, dataDir, 'some.key')).equals(keys[0]!)).toBe(true);
  });

  it('is not made when one is configured', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kept-key-'));
    const configured = Buffer.alloc(32, 1);
    expect(await configuredOrKeptKey(configured, dataDir, 'some.key')).toBe(configured);
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('refuses a file that does not hold a 32-byte key rather than replace it', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kept-key-'));
    await writeFile(path.join(dataDir, 'some.key'), 'short\n');
    await expect(configuredOrKeptKey(null, dataDir, 'some.key')).rejects.toThrow('does not hold a 32-byte base64 key');
    expect(await readFile(path.join(dataDir, 'some.key'), 'utf8')).toBe('short\n');
  });
});
