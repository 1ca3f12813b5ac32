import { createHash, randomFillSync, randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function newId(): string {
  return randomUUID();
}

const randomPool = Buffer.alloc(16 * 256);
let randomOffset = randomPool.length;

/**
 * RFC 9562 version-7 id: the milliseconds since the epoch, then random bits. Ids made later sort
 * later, so an index of them grows at its right edge instead of touching a random page per insert
 * (the event store's ids: a bulk sync inserts 100,000 of them).
 */
export function timeOrderedId(now = Date.now()): string {
  if (randomOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  const bytes = Buffer.from(randomPool.subarray(randomOffset, randomOffset + 16));
  randomOffset += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** RFC 4122 version-5 id: the same name in the same namespace always gives the same id. */
export function nameBasedId(namespace: string, name: string): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespaceBytes).update(name).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
