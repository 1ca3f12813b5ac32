/**
 * Seeded randomness for the sandbox. Every generator takes its own stream, derived from the seed
 * and a component key, so changing one component (say, the transaction count) leaves the others
 * byte-identical.
 */
import { mix32, mulberry32, type Random } from '../../../core/seeded-random.js';

export { mix32, mulberry32, type Random } from '../../../core/seeded-random.js';

export function hashSeed(...parts: readonly (number | string)[]): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const text = typeof part === 'number' ? `#${part}` : `$${part}`;
    for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    hash = mix32(hash);
  }
  return hash >>> 0;
}

export function randomStream(seed: number, component: string): Random {
  return mulberry32(hashSeed(seed, component));
}

export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function chance(random: Random, probability: number): boolean {
  return random() < probability;
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** Skewed towards `min`: most card purchases are small, a few are large. */
export function skewedCents(random: Random, minCents: number, maxCents: number): number {
  const u = random();
  return Math.round(minCents + (maxCents - minCents) * u * u);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PAIRS = Array.from({ length: 62 * 62 }, (_, i) => BASE62[Math.floor(i / 62)]! + BASE62[i % 62]!);

export function base62(value: number, width: number): string {
  let x = value >>> 0;
  let text = '';
  for (let i = 0; i < width; i += 1) {
    text = BASE62[x % 62] + text;
    x = Math.floor(x / 62);
  }
  return text;
}

/** Six base-62 characters for any 32-bit value (62^6 > 2^32), via a two-character table. */
function base62Six(value: number): string {
  const x = value >>> 0;
  return PAIRS[Math.floor(x / 14776336)]! + PAIRS[Math.floor(x / 3844) % 3844]! + PAIRS[x % 3844]!;
}

/**
 * Opaque-looking ids, unique for each serial within a namespace: the middle six characters are a
 * bijection of the serial. The namespace prefix is computed once per factory.
 */
export function opaqueIdFactory(namespace: number): (serial: number) => string {
  const prefix = base62Six(mix32(namespace ^ 0x5bd1e995));
  return (serial) => prefix + base62Six(mix32(mix32(serial) ^ namespace)) + base62Six(mix32(serial ^ 0x9e3779b9 ^ namespace));
}
