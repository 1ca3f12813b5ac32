import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '../src/config/config.js';
import { createHttpApp } from '../src/http-app.js';
import { createLogger } from '../src/infrastructure/logging/logger.js';
import { type Runtime, startRuntime } from '../src/infrastructure/runtime/runtime.js';
import type { Scope } from '../src/modules/identity/api-key.js';
import { openSession } from '../src/modules/identity/session.store.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
/** A key that may manage keys: `keys` is never given unless asked for. */
const MANAGER: Scope[] = ['read', 'write', 'keys'];

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('API keys', () => {
  it('are issued once with their secret, then listed without it', async () => {
    const { key } = await t.newUser(MANAGER);
    const issued = await t.as(key).post('/v1/api-keys', { name: 'Budget spreadsheet' }).expect(201);
    expect(issued.headers['cache-control']).toBe('no-store');
    expect(issued.body).toEqual({
      id: expect.any(String),
      name: 'Budget spreadsheet',
      key: expect.stringMatching(/^pf_live_[0-9A-Za-z]{40}$/),
      prefix: issued.body.key.slice(0, 12),
      scopes: ['read', 'write'],
      createdAt: expect.any(String),
    });
    await t.as(issued.body.key).get('/v1/accounts').expect(200);

    const listed = await t.as(key).get('/v1/api-keys').expect(200);
    expect(listed.body.apiKeys.map((entry: { name: string }) => entry.name)).toEqual(['test', 'Budget spreadsheet']);
    for (const entry of listed.body.apiKeys) expect(Object.keys(entry).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes']);
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.key.slice(12));
    const stored = await t.runtime.database.db.selectFrom('api_keys').selectAll().where('id', '=', issued.body.id).executeTakeFirstOrThrow();
    expect(JSON.stringify({ ...stored, key_hash: stored.key_hash.toString('hex') })).not.toContain(issued.body.key.slice(12));
  });

  it('record when they were last used, to the minute', async () => {
    const { key } = await t.newUser(MANAGER);
    const issued = (await t.as(key).post('/v1/api-keys', { name: 'cron' }).expect(201)).body;
    const lastUsedAt = async () => (await t.as(key).get('/v1/api-keys').expect(200)).body.apiKeys.find((entry: { id: string }) => entry.id === issued.id).lastUsedAt;
    expect(await lastUsedAt()).toBeNull();
    await t.as(issued.key).get('/v1/accounts').expect(200);
    for (let attempt = 0; attempt < 50 && (await lastUsedAt()) === null; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await lastUsedAt()).toEqual(expect.any(String));
  });

  it('carry the scopes asked for; a read-only key gets 403 on every write operation of the API', async () => {
    const { key } = await t.newUser(MANAGER);
    const reader = (await t.as(key).post('/v1/api-keys', { name: 'dashboard', scopes: ['read'] }).expect(201)).body;
    expect(reader.scopes).toEqual(['read']);
    await t.as(reader.key).get('/v1/accounts').expect(200);
    const sample = '00000000-0000-4000-8000-000000000000';
    const needsCredentials = (security: unknown[] | undefined) => !!security && security.length > 0 && security.every((requirement) => Object.keys(requirement as object).length > 0);
    const writes = Object.entries(t.openApi.document.paths)
      .filter(([route]) => route.startsWith('/v1/'))
      .flatMap(([route, operations]) =>
        Object.entries(operations)
          .filter(([method, operation]) => method !== 'get' && needsCredentials(operation.security))
          .map(([method]) => ({ method, url: route.replace(/\{\w+\}/g, sample) })),
      );
    expect(writes.length).toBeGreaterThan(5);
    for (const { method, url } of writes) {
      const refused = await request(t.server)[method as 'post'](url).set('Authorization', `Bearer ${reader.key}`).send({});
      expect([method, url, refused.status, refused.body]).toEqual([method, url, 403, { error: { code: 'FORBIDDEN', message: 'This API key lacks the "write" scope.' } }]);
    }
  });

  it('refuse a missing or overlong name and unknown, empty or repeated scopes (422)', async () => {
    const { key } = await t.newUser(MANAGER);
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'k', scopes: ['admin'] }, { name: 'k', scopes: [] }, { name: 'k', scopes: ['read', 'read'] }, { name: 'k', extra: 1 }]) {
      await t.as(key).post('/v1/api-keys', body).expect(422);
    }
  });

  it("answer 404 for another user's key, an unknown or malformed id, and a key already revoked", async () => {
    const owner = await t.newUser(MANAGER);
    const other = await t.newUser(MANAGER);
    const ownersKey = (await t.as(owner.key).post('/v1/api-keys', { name: 'mine' }).expect(201)).body;
    const notFound = await t.as(other.key).delete(`/v1/api-keys/${ownersKey.id}`).expect(404);
    expect(notFound.body).toEqual({ code: 'NOT_FOUND', error: 'API key not found' });
    await t.as(owner.key).delete('/v1/api-keys/00000000-0000-4000-8000-000000000000').expect(404);
    await t.as(owner.key).delete('/v1/api-keys/not-a-uuid').expect(404);
    await t.as(ownersKey.key).get('/v1/accounts').expect(200);
    await t.as(owner.key).delete(`/v1/api-keys/${ownersKey.id}`).expect(200);
    await t.as(owner.key).delete(`/v1/api-keys/${ownersKey.id}`).expect(404);
  });

  it('stop working at once on every instance when revoked, and leave the list', async () => {
    const second = await startSecondInstance(t.runtime);
    try {
      const { key } = await t.newUser(MANAGER);
      const doomed = (await t.as(key).post('/v1/api-keys', { name: 'laptop' }).expect(201)).body;
      await request(second.server).get('/v1/accounts').set('Authorization', `Bearer ${doomed.key}`).expect(200);
      expect(await t.as(key).delete(`/v1/api-keys/${doomed.id}`).expect(200).then((response) => response.body)).toEqual({ success: true, message: 'API key revoked' });
      const refused = await request(second.server).get('/v1/accounts').set('Authorization', `Bearer ${doomed.key}`).expect(401);
      expect(refused.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid or expired token' } });
      await t.as(doomed.key).get('/v1/accounts').expect(401);
      const listed = await t.as(key).get('/v1/api-keys').expect(200);
      expect(listed.body.apiKeys.map((entry: { id: string }) => entry.id)).not.toContain(doomed.id);
    } finally {
      await second.close();
    }
  });

  it('are managed only by a session or a key with the keys scope: a plain write key can neither mint, list nor revoke others (403)', async () => {
    const { userId, key: writer } = await t.newUser(['read', 'write']);
    const forbidden = { error: { code: 'FORBIDDEN', message: expect.stringContaining('lacks the "keys" scope') } };
    expect((await t.as(writer).post('/v1/api-keys', { name: 'escalation', scopes: ['read', 'write', 'keys'] }).expect(403)).body).toEqual(forbidden);
    expect((await t.as(writer).post('/v1/api-keys', { name: 'copy' }).expect(403)).body).toEqual(forbidden);
    expect((await t.as(writer).get('/v1/api-keys').expect(403)).body).toEqual(forbidden);

    // The user's browser session manages keys; `keys` is given only when asked for.
    const { token } = await openSession(t.runtime.database.db, userId, new Date());
    const browser = t.withSession(`pf_session=${token}`);
    const plain = (await browser.post('/v1/api-keys', { name: 'script' }).expect(201)).body;
    expect(plain.scopes).toEqual(['read', 'write']);
    const manager = (await browser.post('/v1/api-keys', { name: 'provisioning', scopes: ['keys', 'write', 'read'] }).expect(201)).body;
    expect(manager.scopes).toEqual(['read', 'write', 'keys']);
    expect((await t.as(writer).delete(`/v1/api-keys/${plain.id}`).expect(403)).body).toEqual(forbidden);
    await t.as(plain.key).get('/v1/accounts').expect(200);

    // A key with the scope manages keys. `keys` adds to read and write (listing is a read, issuing
    // and revoking are writes), so a key with nothing but `keys` opens nothing.
    expect((await t.as(manager.key).get('/v1/api-keys').expect(200)).body.apiKeys).toHaveLength(3);
    const minted = (await t.as(manager.key).post('/v1/api-keys', { name: 'minted', scopes: ['read'] }).expect(201)).body;
    await t.as(manager.key).delete(`/v1/api-keys/${minted.id}`).expect(200);
    // It hands out no scope it lacks itself.
    const writerManager = (await browser.post('/v1/api-keys', { name: 'no read', scopes: ['write', 'keys'] }).expect(201)).body;
    const escalation = await t.as(writerManager.key).post('/v1/api-keys', { name: 'reader', scopes: ['read'] }).expect(403);
    expect(escalation.body.error.message).toBe('An API key can only issue keys with scopes it has itself; this one lacks "read".');
    await t.as(writerManager.key).post('/v1/api-keys', { name: 'writer', scopes: ['write'] }).expect(201);
    const keysOnly = (await browser.post('/v1/api-keys', { name: 'keys only', scopes: ['keys'] }).expect(201)).body;
    expect((await t.as(keysOnly.key).get('/v1/api-keys').expect(403)).body.error.message).toBe('This API key lacks the "read" scope.');
    expect((await t.as(keysOnly.key).post('/v1/api-keys', { name: 'x' }).expect(403)).body.error.message).toBe('This API key lacks the "write" scope.');
  });

  it('let a key with write revoke itself, even without the keys scope', async () => {
    const { key: writer } = await t.newUser(['read', 'write']);
    const [own] = (await t.runtime.database.db.selectFrom('api_keys').select('id').where('prefix', '=', writer.slice(0, 12)).execute()) as Array<{ id: string }>;
    await t.as(writer).delete(`/v1/api-keys/${own.id}`).expect(200);
    await t.as(writer).get('/v1/accounts').expect(401);
  });

  it('let any key revoke itself whatever its scopes, and nothing else without write and keys', async () => {
    const { key: manager } = await t.newUser(MANAGER);
    const reader = (await t.as(manager).post('/v1/api-keys', { name: 'dashboard', scopes: ['read'] }).expect(201)).body;
    const keysOnly = (await t.as(manager).post('/v1/api-keys', { name: 'keys only', scopes: ['keys'] }).expect(201)).body;
    const neighbour = (await t.as(manager).post('/v1/api-keys', { name: 'neighbour', scopes: ['read'] }).expect(201)).body;

    const refused = await t.as(reader.key).delete(`/v1/api-keys/${neighbour.id}`).expect(403);
    expect(refused.body).toEqual({ error: { code: 'FORBIDDEN', message: 'This API key lacks the "write" scope.' } });
    expect((await t.as(keysOnly.key).delete(`/v1/api-keys/${neighbour.id}`).expect(403)).body.error.message).toBe('This API key lacks the "write" scope.');
    await t.as(neighbour.key).get('/v1/accounts').expect(200);

    expect((await t.as(reader.key).delete(`/v1/api-keys/${reader.id}`).expect(200)).body).toEqual({ success: true, message: 'API key revoked' });
    await t.as(reader.key).get('/v1/accounts').expect(401);
    // The id as it is written in any case names the same key.
    await t.as(keysOnly.key).delete(`/v1/api-keys/${(keysOnly.id as string).toUpperCase()}`).expect(200);
    await t.as(keysOnly.key).get('/v1/api-keys').expect(401);
    await t.as(neighbour.key).get('/v1/accounts').expect(200);
  });

  it('may revoke the very key that makes the request', async () => {
    const { key } = await t.newUser(MANAGER);
    const own = (await t.as(key).get('/v1/api-keys').expect(200)).body.apiKeys[0];
    await t.as(key).delete(`/v1/api-keys/${own.id}`).expect(200);
    await t.as(key).get('/v1/api-keys').expect(401);
  });
});

/** Another instance of the service on the same database, as behind a load balancer. */
async function startSecondInstance(first: Runtime): Promise<{ server: Parameters<typeof request>[0]; close(): Promise<void> }> {
  const config = loadConfig({ DATABASE_URL: first.database.url, LOG_LEVEL: 'silent', PORT: '0', RATE_LIMIT_PER_MINUTE: '0' });
  const runtime = await startRuntime(config, createLogger('silent'));
  const app: INestApplication = await createHttpApp(runtime);
  return {
    server: app.getHttpServer(),
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}
