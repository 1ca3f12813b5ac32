import { deepFreeze, StreamStateCache } from './stream-state-cache.js';

const counter = { name: 'counter' };
const lister = { name: 'lister' };

describe('stream state cache', () => {
  it('keeps one entry per decider and stream: two deciders over one stream never see each other’s state', () => {
    const cache = new StreamStateCache(10);
    cache.set(counter, 's-1', { revision: 3n, owner: 'u', state: { count: 4 } });
    cache.set(lister, 's-1', { revision: 1n, owner: 'u', state: { types: ['A', 'B'] } });
    expect(cache.get(counter, 's-1')).toEqual({ revision: 3n, owner: 'u', state: { count: 4 } });
    expect(cache.get(lister, 's-1')).toEqual({ revision: 1n, owner: 'u', state: { types: ['A', 'B'] } });
    expect(cache.get(counter, 's-2')).toBeUndefined();
    cache.delete(counter, 's-1');
    expect(cache.get(counter, 's-1')).toBeUndefined();
    expect(cache.get(lister, 's-1')).toBeDefined();
  });

  it('keeps the newer of two states of one stream whichever is stored last (commands finishing out of order)', () => {
    const cache = new StreamStateCache(10);
    cache.set(counter, 's', { revision: 5n, owner: 'u', state: { count: 6 } });
    cache.set(counter, 's', { revision: 4n, owner: 'u', state: { count: 5 } });
    expect(cache.get(counter, 's')?.revision).toBe(5n);
    cache.set(counter, 's', { revision: 7n, owner: 'u', state: { count: 8 } });
    expect(cache.get(counter, 's')?.state).toEqual({ count: 8 });
  });

  it('holds at most its capacity, dropping the least recently used', () => {
    const cache = new StreamStateCache(3);
    for (const id of ['a', 'b', 'c']) cache.set(counter, id, { revision: 0n, owner: 'u', state: id });
    cache.get(counter, 'a');
    cache.set(counter, 'd', { revision: 0n, owner: 'u', state: 'd' });
    expect(cache.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].filter((id) => cache.get(counter, id) !== undefined)).toEqual(['a', 'c', 'd']);
  });

  it('freezes what it keeps, Maps and Sets included, so a decide that writes to a state throws instead of corrupting it', () => {
    const cache = new StreamStateCache(10);
    const state = { nested: { list: [1, 2] }, byId: new Map([['x', { n: 1 }]]), locked: new Set(['a']) };
    cache.set(counter, 's', { revision: 0n, owner: 'u', state });
    const kept = cache.get<typeof state>(counter, 's')!.state;
    expect(() => (kept.nested.list as number[]).push(3)).toThrow(TypeError);
    expect(() => ((kept.nested as { list: number[] }).list = [])).toThrow(TypeError);
    expect(() => kept.byId.set('y', { n: 2 })).toThrow(TypeError);
    expect(() => ((kept.byId.get('x') as { n: number }).n = 5)).toThrow(TypeError);
    expect(() => kept.locked.add('b')).toThrow(TypeError);
    expect(() => kept.locked.clear()).toThrow(TypeError);
    expect(kept).toEqual({ nested: { list: [1, 2] }, byId: new Map([['x', { n: 1 }]]), locked: new Set(['a']) });
    // Copies, as every evolve makes them, are free to change.
    const copy = new Map(kept.byId).set('y', { n: 2 });
    expect([...copy.keys()]).toEqual(['x', 'y']);
    expect([...new Set(kept.locked).add('b')]).toEqual(['a', 'b']);
  });

  it('freezes the new parts of a state beside parts frozen before, and leaves primitives and byte arrays be', () => {
    const shared = { big: Array.from({ length: 3 }, (_, i) => ({ i })) };
    deepFreeze(shared);
    const next = { shared, added: { n: 1 }, bytes: new Uint8Array([1, 2]) };
    deepFreeze(next);
    expect(Object.isFrozen(next.added)).toBe(true);
    expect(() => deepFreeze(7)).not.toThrow();
    next.bytes[0] = 9;
    expect(next.bytes[0]).toBe(9);
  });
});
