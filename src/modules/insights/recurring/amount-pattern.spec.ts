import { amountsAgree, poissonTail, repeatedPriceClusters } from './amount-pattern.js';
import type { Occurrence } from './recurring-stream.types.js';

const occurrence = (id: string, day: number, dollars: number): Occurrence => ({ id, day, units: Math.round(-dollars * 10_000) });

describe('poissonTail', () => {
  it('is the upper tail of a Poisson distribution', () => {
    expect(poissonTail(2, 0)).toBeCloseTo(1, 10);
    expect(poissonTail(2, 1)).toBeCloseTo(1 - Math.exp(-2), 10);
    expect(poissonTail(0.01, 10)).toBeGreaterThan(0);
    expect(poissonTail(0.01, 10)).toBeLessThan(1e-25);
  });
});

describe('repeatedPriceClusters', () => {
  it('finds a plan’s price among purchases whose prices only repeat by chance', () => {
    const purchases = Array.from({ length: 400 }, (_, position) => occurrence(`buy-${position}`, position, 5 + ((position * 7919) % 17_000) / 100));
    const plan = Array.from({ length: 6 }, (_, position) => occurrence(`plan-${position}`, position * 30, 14.99));

    expect(repeatedPriceClusters([...purchases, ...plan], 4)).toEqual([plan]);
  });

  it('does not take a busy price band’s chance repeats for a product', () => {
    const purchases = Array.from({ length: 3000 }, (_, position) => occurrence(`buy-${position}`, position, 10 + (position % 700) / 100));

    expect(repeatedPriceClusters(purchases, 4)).toEqual([]);
  });
});

describe('amountsAgree', () => {
  const run = (dollars: readonly number[]) => dollars.map((amount, position) => occurrence(`m-${position}`, position * 30, amount));

  it('lets a payee paid on the schedule vary its amounts by up to a factor of two', () => {
    expect(amountsAgree(run([82.1, 104.33, 61.9, 77, 99.87]), { poolSize: 5, dedicated: true })).toBe(true);
    expect(amountsAgree(run([12, 95, 30, 61, 8]), { poolSize: 5, dedicated: true })).toBe(false);
  });

  it('asks a payee with irregular spending too for repeated prices', () => {
    expect(amountsAgree(run([82.1, 104.33, 61.9, 77, 99.87]), { poolSize: 40, dedicated: false })).toBe(false);
    expect(amountsAgree(run([15.49, 15.49, 15.49, 17.99, 17.99]), { poolSize: 40, dedicated: false })).toBe(true);
  });

  it('takes two payments only when they are all the payee saw and agree within 5%', () => {
    expect(amountsAgree(run([9.99, 9.99]), { poolSize: 2, dedicated: true })).toBe(true);
    expect(amountsAgree(run([9.99, 9.99]), { poolSize: 3, dedicated: true })).toBe(false);
    expect(amountsAgree(run([9.99, 12.99]), { poolSize: 2, dedicated: true })).toBe(false);
  });
});
