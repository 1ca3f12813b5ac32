import { base62, mix32 } from '../../../core/seeded-random.js';

const BASE62_PAIRS = Array.from({ length: 62 * 62 }, (_, i) => base62(i, 2));

/** Six base-62 characters for any 32-bit value (62^6 > 2^32), via a two-character table: ids are minted by the hundred thousand. */
function base62Six(value: number): string {
  const x = value >>> 0;
  return BASE62_PAIRS[Math.floor(x / 14776336)]! + BASE62_PAIRS[Math.floor(x / 3844) % 3844]! + BASE62_PAIRS[x % 3844]!;
}

/**
 * Opaque-looking ids, unique for each serial within a namespace: the middle six characters are a
 * bijection of the serial. The namespace prefix is computed once per factory.
 */
export function opaqueIdFactory(namespace: number): (serial: number) => string {
  const prefix = base62Six(mix32(namespace ^ 0x5bd1e995));
  return (serial) => prefix + base62Six(mix32(mix32(serial) ^ namespace)) + base62Six(mix32(serial ^ 0x9e3779b9 ^ namespace));
}
