import type { Principal } from '../../../infrastructure/http/authenticator.port.js';
import { ApiKeyCache } from './api-key-cache.js';
import { parseNotification } from './api-key-invalidations.js';

const principal = (apiKeyId: string, userId = 'user-1'): Principal => ({ user: { id: userId, email: null, name: null }, scopes: ['read'], credential: { kind: 'apiKey', apiKeyId } });

function cacheAt(limits = { maxEntries: 3, ttlMs: 60_000 }) {
  const clock = { now: 0 };
  return { cache: new ApiKeyCache(limits, () => clock.now), clock };
}

describe('the API-key cache', () => {
  it('answers what it was told, until the entry is older than the TTL', () => {
    const { cache, clock } = cacheAt();
    expect(cache.remember('h1', principal('k1'), cache.generation)).toBe(true);
    clock.now = 59_999;
    expect(cache.recall('h1')).toEqual(principal('k1'));
    clock.now = 60_000;
    expect(cache.recall('h1')).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('drops the least recently used entry past its bound', () => {
    const { cache } = cacheAt();
    for (const id of ['1', '2', '3']) cache.remember(`h${id}`, principal(`k${id}`), cache.generation);
    cache.recall('h1');
    cache.remember('h4', principal('k4'), cache.generation);
    expect([cache.recall('h1'), cache.recall('h2'), cache.recall('h3'), cache.recall('h4')].map((hit) => hit?.credential)).toEqual([
      { kind: 'apiKey', apiKeyId: 'k1' },
      undefined,
      { kind: 'apiKey', apiKeyId: 'k3' },
      { kind: 'apiKey', apiKeyId: 'k4' },
    ]);
  });

  it('forgets one key, every key of one user, or everything', () => {
    const { cache } = cacheAt({ maxEntries: 10, ttlMs: 60_000 });
    cache.remember('a1', principal('ka1', 'alice'), cache.generation);
    cache.remember('a2', principal('ka2', 'alice'), cache.generation);
    cache.remember('b1', principal('kb1', 'bob'), cache.generation);
    cache.forgetKey('ka1');
    expect([cache.recall('a1'), cache.recall('a2')?.user.id, cache.recall('b1')?.user.id]).toEqual([null, 'alice', 'bob']);
    cache.forgetUser('alice');
    expect([cache.recall('a2'), cache.recall('b1')?.user.id]).toEqual([null, 'bob']);
    cache.forgetAll();
    expect(cache.size).toBe(0);
  });

  it('refuses the answer of a read begun before something was forgotten (a revocation racing the read)', () => {
    const { cache } = cacheAt();
    const readBegan = cache.generation;
    cache.forgetKey('some other key');
    expect(cache.remember('h1', principal('k1'), readBegan)).toBe(false);
    expect(cache.recall('h1')).toBeNull();
    expect(cache.remember('h1', principal('k1'), cache.generation)).toBe(true);
  });

  it('keeps nothing when its bound is 0', () => {
    const { cache } = cacheAt({ maxEntries: 0, ttlMs: 60_000 });
    expect(cache.remember('h1', principal('k1'), cache.generation)).toBe(false);
    expect(cache.size).toBe(0);
  });
});

describe('invalidation payloads', () => {
  it('name a key, a user or everything (with the transaction that changed it), an instance ping, an acknowledgement; anything else is ignored', () => {
    expect(parseNotification('key 3f1c 9a2b')).toEqual({ kind: 'key', apiKeyId: '3f1c' });
    expect(parseNotification('key 3f1c 9a2b 7731')).toEqual({ kind: 'key', apiKeyId: '3f1c', xid: '7731' });
    expect(parseNotification('user 9a2b')).toEqual({ kind: 'user', userId: '9a2b' });
    expect(parseNotification('user 9a2b 7731')).toEqual({ kind: 'user', userId: '9a2b', xid: '7731' });
    expect(parseNotification('all')).toEqual({ kind: 'all' });
    expect(parseNotification('all 7731')).toEqual({ kind: 'all', xid: '7731' });
    expect(parseNotification('ping i-1 42')).toEqual({ kind: 'ping', instance: 'i-1', sequence: 42 });
    expect(parseNotification('ack i-1 7731')).toEqual({ kind: 'ack', instance: 'i-1', xid: '7731' });
    const noise = ['', 'key', 'key 3f1c', 'key 3f1c 9a2b x', 'key 3f1c 9a2b 1 2', 'user', 'user 9a2b x', 'all now', 'ping i-1', 'ping i-1 x', 'ack i-1', 'ack i-1 x', 'revoke 3f1c'];
    for (const payload of noise) expect([payload, parseNotification(payload)]).toEqual([payload, null]);
  });
});
