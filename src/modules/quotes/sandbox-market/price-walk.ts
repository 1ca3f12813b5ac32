import { mix32 } from '../../../core/seeded-random.js';

/**
 * A seeded random walk that is O(log n) for any day, with no state and no cache: Lévy's
 * Brownian-bridge construction over 2^15 sessions (1990 to about 2115). The value at the end of
 * the span is drawn first; each halving then draws the midpoint from its bridge, so session n is
 * reached in 15 steps, and every session's value is fixed by the seed alone.
 */
export const WALK_SESSIONS = 2 ** 15;

export { mix32 };

export function hashText(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return mix32(hash);
}

/**
 * A standard normal draw for `(stream, key)`: the sum of four uniforms (Irwin–Hall), rescaled.
 * Only integer arithmetic and one multiply, so every platform computes the same value.
 */
export function gaussian(stream: number, key: number): number {
  const base = mix32((key ^ stream) >>> 0) ^ mix32(stream + 0x632be5ab);
  let sum = 0;
  for (let i = 1; i <= 4; i += 1) sum += mix32(base + Math.imul(i, 0x9e3779b9)) / 4294967296;
  return (sum - 2) * Math.sqrt(3);
}

const nodeKey = (level: number, position: number): number => level * 0x10000 + position;

/** Standard Brownian motion at session `index` (0 … WALK_SESSIONS), B(0) = 0. */
export function brownianAt(stream: number, index: number): number {
  if (!Number.isInteger(index) || index < 0 || index > WALK_SESSIONS) throw new RangeError(`Session ${index} is outside the sandbox market's span`);
  let [lo, hi] = [0, WALK_SESSIONS];
  let [valueLo, valueHi] = [0, Math.sqrt(WALK_SESSIONS) * gaussian(stream, nodeKey(0, 0))];
  for (let level = 1; ; level += 1) {
    if (index === lo) return valueLo;
    if (index === hi) return valueHi;
    const mid = (lo + hi) / 2;
    const valueMid = (valueLo + valueHi) / 2 + Math.sqrt((hi - lo) / 4) * gaussian(stream, nodeKey(level, mid));
    if (index === mid) return valueMid;
    if (index < mid) [hi, valueHi] = [mid, valueMid];
    else [lo, valueLo] = [mid, valueMid];
  }
}
