import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

const KEY_BYTES = 32;

/**
 * A 32-byte key: the configured one, else the one kept in `DATA_DIR/<fileName>` (base64, mode
 * 0600), made on first use. A key file is local to its machine: several machines on one
 * database need the key configured.
 */
export async function configuredOrKeptKey(configured: Buffer | null, dataDir: string, fileName: string): Promise<Buffer> {
  if (configured) return configured;
  const file = path.join(dataDir, fileName);
  const key = Buffer.from((await keptSecretFile(dataDir, fileName, () => `${randomBytes(KEY_BYTES).toString('base64')}\n`)).trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a 32-byte base64 key; remove it only if nothing depends on it`);
  return key;
}

/**
 * The text of `DATA_DIR/<fileName>` (mode 0600), written from `make()` on first use. The file
 * appears whole or not at all (written aside, then linked into place, which fails if another
 * process got there first), so processes starting together on one DATA_DIR all read the same text.
 */
export async function keptSecretFile(dataDir: string, fileName: string, make: () => string): Promise<string> {
  const file = path.join(dataDir, fileName);
  await mkdir(dataDir, { recursive: true });
  const aside = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(aside, make(), { flag: 'wx', mode: 0o600 });
  try {
    await link(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(aside);
  }
  return readFile(file, 'utf8');
}
