/** Deterministic randomness for generated data and property tests: same seed, same numbers, everywhere. */
export type Random = () => number;

/** lowbias32: a bijection on 32-bit integers, so distinct inputs never collide. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** mulberry32: small, fast, and good enough for fixtures. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * FNV-1a over the parts, each mixed through mix32, to one 32-bit seed. Numbers and strings are
 * tagged differently, so `hashSeed(1)` and `hashSeed('1')` differ. Stored seeds are expanded
 * through this, so its output must never change.
 */
export function hashSeed(...parts: readonly (number | string)[]): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const text = typeof part === 'number' ? `#${part}` : `$${part}`;
    for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    hash = mix32(hash);
  }
  return hash >>> 0;
}

/**
 * One generator's own stream, derived from the seed and a component key, so changing one component
 * (say, how many transactions it makes) leaves the others byte-identical.
 */
export function randomStream(seed: number, component: string): Random {
  return mulberry32(hashSeed(seed, component));
}

/** An integer in `min..max`, both included. */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function chance(random: Random, probability: number): boolean {
  return random() < probability;
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The low `width` base-62 digits of a 32-bit value, most significant first, zero-padded. */
export function base62(value: number, width: number): string {
  let x = value >>> 0;
  let text = '';
  for (let i = 0; i < width; i += 1) {
    text = BASE62[x % 62] + text;
    x = Math.floor(x / 62);
  }
  return text;
}
