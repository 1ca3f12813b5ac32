import { appendsOf, seededConnection } from '../projections/brokerage/brokerage-events.test-support.js';
import request from 'supertest';
import type { Clock } from '../src/core/clock.js';
import { openSession } from '../src/modules/identity/session.store.js';
import type { OpenApiOperation } from './support/openapi-validator.js';
import { type AuthorizedClient, startTestApp, type TestApp } from './support/test-app.js';

/**
 * User B, with B's own valid credentials, aims every /v1 operation that takes an id at user A's
 * ids. Each must answer 404 as if the id did not exist (or, for an idempotent DELETE, succeed
 * without effect), and everything A can read must be exactly as before. The operations come
 * from the served OpenAPI document, so one added later is swept too, or fails here until its
 * id has a fixture below.
 */

/** A rule of A's that matches none of A's transactions, so applying it changes nothing the sweep compares. */
const aRule = { name: "A's rule", conditions: [{ field: 'name', op: 'equals', value: 'nothing A has' }], actions: [{ type: 'setNotes', notes: "A's note" }] };

/** Path parameters naming something that belongs to a user, and how A comes to own one. */
const FIXTURES: Record<string, (a: AuthorizedClient) => Promise<string>> = {
  accountId: async (a) => (await a.post('/v1/accounts', { name: 'A checking', type: 'credit_card', subtype: 'credit card', currentBalance: -250, creditLimit: 1000 }).expect(201)).body.id,
  transactionId: async (a) => {
    const accountId = (await a.post('/v1/accounts', { name: 'A cash', type: 'bank', subtype: 'checking', currentBalance: 40 }).expect(201)).body.id;
    return (await a.post('/v1/transactions', { accountId, amount: -12.5, date: '2026-11-20', name: 'A lunch', notes: 'private' }).expect(201)).body.id;
  },
  importId: async (a) => {
    const accountId = (await a.post('/v1/accounts', { name: 'A imported', type: 'bank', subtype: 'checking', currentBalance: 0 }).expect(201)).body.id;
    const statement = Buffer.from('Date,Description,Amount\n2026-11-19,A groceries,-42.10\n');
    return (await a.post(`/v1/accounts/${accountId}/imports`, statement).set('Content-Type', 'text/csv').expect(202)).body.id;
  },
  apiKeyId: async (a) => (await a.post('/v1/api-keys', { name: "A's other key" }).expect(201)).body.id,
  tagId: async (a) => (await a.post('/v1/tags', { name: "A's tag", color: 'violet' }).expect(201)).body.id,
  ruleId: async (a) => (await a.post('/v1/rules', aRule).expect(201)).body.id,
  applicationId: async (a) => {
    const ruleId = (await a.post('/v1/rules', { ...aRule, name: "A's applied rule" }).expect(201)).body.id;
    return (await a.post(`/v1/rules/${ruleId}/apply`).expect(202)).body.id;
  },
  endpointId: async (a) => (await a.post('/v1/webhooks/endpoints', { url: 'https://93.184.216.34/a-hooks', description: "A's endpoint" }).expect(201)).body.id,
  categoryId: async (a) => {
    const { groups } = (await a.get('/v1/categories').expect(200)).body as { groups: Array<{ id: string }> };
    return (await a.post('/v1/categories', { groupId: groups[0].id, iconKey: 'lock', name: "A's own" }).expect(201)).body.id;
  },
  linkItemId: async (a) => {
    const { publicToken } = (await a.post('/v1/sandbox/public-token', { institutionId: 'ins_100003' }).expect(200)).body;
    return (await a.post('/v1/link/items', { publicToken }).expect(201)).body.linkItemId;
  },
  brokerageAuthorizationId: async (a) => {
    const redirectUrl = new URL((await a.post('/v1/brokerage/connect', {}).expect(200)).body.redirectUrl);
    // The portal, opened as a browser would (no credential), completes the connection and names it in the return URL.
    const portal = await request(t.server).get(`${redirectUrl.pathname}${redirectUrl.search}`).redirects(0).expect(302);
    return new URL(portal.headers.location as string).searchParams.get('brokerageAuthorizationId') ?? '';
  },
};
/** Path parameters that name public things (a market ticker), not anything of a user's. */
const NOT_OWNED = new Set(['symbol']);

/**
 * Query parameters naming something of a user's that an operation answers 404 to when it is not
 * the caller's (it documents 404): B's filter on A's id must be a 404 too, not A's data or an
 * empty page. A's brokerage account is seeded as the connect flow and first sync append it.
 */
const QUERY_FIXTURES: Record<string, (owner: { userId: string }) => Promise<string>> = {
  accountId: async ({ userId }) => {
    const connection = seededConnection(userId, { asOf: clock.now().toISOString() });
    for (const { streamId, events } of appendsOf(connection)) {
      const metadata = { userId, actor: 'system' as const, requestId: 'seed', causationId: 'seed', correlationId: 'seed', occurredAt: clock.now().toISOString(), schemaVersion: 1 };
      await t.runtime.eventStore.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata })), 'no_stream');
    }
    return connection.accounts[0].data.accountId;
  },
  categoryId: async ({ userId }) => {
    // A category of A's own making.
    const a = t.as(keyOf.get(userId) as string);
    const { groups } = (await a.get('/v1/categories').expect(200)).body as { groups: Array<{ id: string }> };
    return (await a.post('/v1/categories', { groupId: groups[1].id, iconKey: 'star', name: "A's filter" }).expect(201)).body.id;
  },
  tagId: async ({ userId }) => (await t.as(keyOf.get(userId) as string).post('/v1/tags', { name: "A's filter tag", color: 'teal' }).expect(201)).body.id,
};
/** The key of each user the sweep made, for the query fixtures that create through the API. */
const keyOf = new Map<string, string>();

/** A stopped clock: nothing time-driven (lastUsedAt, jobs) changes A's data during the sweep. */
const clock: Clock = { now: () => new Date('2026-11-20T12:00:00.000Z') };

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock });
});
afterAll(() => t.close());

interface Operation {
  readonly method: string;
  readonly route: string;
  readonly operation: OpenApiOperation;
  readonly params: string[];
}

/** The /v1 operations a user's credentials open (a public one, like a provider's webhook, belongs to no user). */
function versionedOperations(): Operation[] {
  const needsCredentials = (operation: OpenApiOperation) => !!operation.security?.length && operation.security.every((requirement) => Object.keys(requirement).length > 0);
  return Object.entries(t.openApi.document.paths)
    .filter(([route]) => route.startsWith('/v1/'))
    .flatMap(([route, operations]) => Object.entries(operations).map(([method, operation]) => ({ method, route, operation, params: [...route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]) })))
    .filter((op) => needsCredentials(op.operation));
}

const fill = (route: string, ids: Record<string, string>) => route.replace(/\{(\w+)\}/g, (_whole, name: string) => ids[name] ?? 'AAPL');

describe('isolation between users', () => {
  it("answers 404 to user B for every operation on user A's ids, and leaves A's data as it was", async () => {
    // Keys with every scope (key management included), so every operation is reachable.
    const a = await t.newUser(['read', 'write', 'keys']);
    const b = await t.newUser(['read', 'write', 'keys']);
    keyOf.set(a.userId, a.key);
    const ids: Record<string, string> = {};
    for (const [name, create] of Object.entries(FIXTURES)) ids[name] = await create(t.as(a.key));
    const queryIds: Record<string, string> = {};
    for (const [name, create] of Object.entries(QUERY_FIXTURES)) queryIds[name] = await create(a);
    // Linking A's item queued its first sync: A's data is what it is once that has run and is projected.
    await t.settle();

    const operations = versionedOperations();
    const targeted = operations.filter((op) => op.params.some((param) => !NOT_OWNED.has(param)));
    const missing = targeted.flatMap((op) => op.params.filter((param) => !NOT_OWNED.has(param) && !FIXTURES[param]).map((param) => `${op.method.toUpperCase()} ${op.route}: {${param}}`));
    expect(missing).toEqual([]); // add a fixture (or a NOT_OWNED entry) for each parameter listed
    expect(targeted.length).toBeGreaterThanOrEqual(9);
    const queryIdsOf = (op: Operation) => (op.operation.parameters ?? []).filter((p) => p.in === 'query' && /Id$/.test(p.name)).map((p) => p.name);
    const filtered = operations.filter((op) => op.method === 'get' && op.operation.responses['404'] && queryIdsOf(op).length > 0 && op.params.length === 0);
    const missingQuery = filtered.flatMap((op) => queryIdsOf(op).filter((name) => !QUERY_FIXTURES[name]).map((name) => `GET ${op.route}?${name}`));
    expect(missingQuery).toEqual([]); // add a QUERY_FIXTURES entry for each query parameter listed
    expect(filtered.length).toBeGreaterThanOrEqual(2);

    // Everything A can read, by every GET that needs nothing but A's ids.
    const readable = operations.filter((op) => op.method === 'get' && op.params.every((param) => FIXTURES[param]) && !(op.operation.parameters ?? []).some((p) => p.in === 'query' && p.required));
    const snapshotOfA = async () => {
      const seen: Record<string, unknown> = {};
      for (const op of readable) {
        const response = await t.as(a.key).get(fill(op.route, ids)).expect(200);
        // The export's JSON lines are text: compared as read.
        seen[fill(op.route, ids)] = String(response.headers['content-type']).startsWith('application/x-ndjson') ? response.text : response.body;
      }
      return seen;
    };
    const before = await snapshotOfA();
    expect(Object.keys(before).length).toBeGreaterThanOrEqual(readable.length);
    expect(before['/v1/export']).toContain(ids.transactionId);
    // A's linked item makes recurring streams: lists without ids are B's own and must hold none of A's.
    const streamIdsOfA = (before['/v1/recurring'] as { streams: Array<{ id: string }> }).streams.map((stream) => stream.id);
    expect(streamIdsOfA.length).toBeGreaterThan(0);

    const { token } = await openSession(t.runtime.database.db, b.userId, clock.now());
    const credentialsOfB: Array<[string, AuthorizedClient]> = [
      ['API key', t.as(b.key)],
      ['session cookie', t.withSession(`pf_session=${token}`)],
    ];
    for (const [credential, asB] of credentialsOfB) {
      for (const op of targeted) {
        const url = fill(op.route, ids);
        // An operation that takes a file (a statement import) is sent none: B's request is refused before any body matters.
        const jsonBody = op.operation.requestBody?.content['application/json'];
        const body = jsonBody ? exampleOf(jsonBody.schema) : undefined;
        const response = await send(asB, op.method, url, body);
        const label = `${credential}: ${op.method.toUpperCase()} ${op.route}`;
        const idempotentDelete = op.method === 'delete' && response.status >= 200 && response.status < 300;
        if (!idempotentDelete) expect([label, response.status, response.body]).toEqual([label, 404, { code: 'NOT_FOUND', error: expect.any(String) }]);
        // An entity as it stood (asOf): A's at any instant is not B's either.
        if ((op.operation.parameters ?? []).some((parameter) => parameter.in === 'query' && parameter.name === 'asOf')) {
          const asOf = await asB.get(`${url}?asOf=${encodeURIComponent(clock.now().toISOString())}`);
          expect([`${label}?asOf`, asOf.status, asOf.body]).toEqual([`${label}?asOf`, 404, { code: 'NOT_FOUND', error: expect.any(String) }]);
        }
        expect([label, await snapshotOfA()]).toEqual([label, before]);
      }
      for (const op of filtered) {
        for (const name of queryIdsOf(op)) {
          const url = `${op.route}?${name}=${queryIds[name]}`;
          const label = `${credential}: GET ${url}`;
          const response = await asB.get(url);
          expect([label, response.status, response.body]).toEqual([label, 404, { code: 'NOT_FOUND', error: expect.any(String) }]);
        }
      }
      expect(await snapshotOfA()).toEqual(before);
      expect([credential, (await asB.get('/v1/recurring').expect(200)).body]).toEqual([credential, { streams: [] }]);
      // B's whole history holds B's events alone: none of A's ids, none appended on A's behalf.
      const exportOfB = (await asB.get('/v1/export').expect(200)).text;
      const linesOfB = exportOfB.split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as { metadata: { userId: string } });
      expect([credential, linesOfB.filter((line) => line.metadata.userId !== b.userId)]).toEqual([credential, []]);
      for (const id of [...Object.values(ids), ...Object.values(queryIds)]) expect([credential, id, exportOfB.includes(id)]).toEqual([credential, id, false]);
    }
    await t.as(a.key).get('/v1/accounts').expect(200);
  }, 180_000);
});

describe('isolation of the tokens a user is handed', () => {
  it("answers 400 to user B for user A's link and public tokens, by key and by session, and A's item and tokens stay as they were", async () => {
    const a = await t.newUser();
    const b = await t.newUser();
    const asA = t.as(a.key);
    const { publicToken } = (await asA.post('/v1/sandbox/public-token', { institutionId: 'ins_100002' }).expect(200)).body;
    const item = (await asA.post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
    await t.settle();
    const tokensOfA = {
      reconnectLinkToken: (await asA.post('/v1/link/token', { reconnectLinkItemId: item.linkItemId }).expect(200)).body.linkToken as string,
      newLinkToken: (await asA.post('/v1/link/token', {}).expect(200)).body.linkToken as string,
    };
    const publicTokensOfA = {
      reconnect: (await asA.post('/v1/sandbox/public-token', { linkToken: tokensOfA.reconnectLinkToken }).expect(200)).body.publicToken as string,
      newItem: (await asA.post('/v1/sandbox/public-token', { linkToken: tokensOfA.newLinkToken, institutionId: 'ins_100004' }).expect(200)).body.publicToken as string,
    };
    const snapshotOfA = async () => ({
      items: (await asA.get('/v1/link/items').expect(200)).body,
      accounts: (await asA.get('/v1/accounts').expect(200)).body,
      atProvider: await t.runtime.database.db.selectFrom('sandbox_bank_items').select(['access_token_hash', 'status']).where('item_id', '=', item.linkItemId).executeTakeFirstOrThrow(),
    });
    const before = await snapshotOfA();

    const { token } = await openSession(t.runtime.database.db, b.userId, clock.now());
    for (const [credential, asB] of [['API key', t.as(b.key)], ['session cookie', t.withSession(`pf_session=${token}`)]] as const) {
      for (const linkToken of Object.values(tokensOfA)) {
        const response = await asB.post('/v1/sandbox/public-token', { linkToken });
        expect([credential, response.status, response.body]).toEqual([credential, 400, { code: 'INVALID_LINK_TOKEN', error: expect.any(String) }]);
      }
      for (const publicToken of Object.values(publicTokensOfA)) {
        const response = await asB.post('/v1/link/items', { publicToken });
        expect([credential, response.status, response.body]).toEqual([credential, 400, { code: 'INVALID_PUBLIC_TOKEN', error: expect.any(String) }]);
      }
      expect((await asB.get('/v1/link/items').expect(200)).body).toEqual({ items: [] });
    }
    await t.settle();
    expect(await snapshotOfA()).toEqual(before);
    // Nothing of A's was spent: A's own tokens still do what they were issued for.
    expect((await asA.post('/v1/link/items', { publicToken: publicTokensOfA.reconnect }).expect(201)).body).toMatchObject({ id: item.id });
    expect((await asA.post('/v1/link/items', { publicToken: publicTokensOfA.newItem }).expect(201)).body.linkItemId).not.toBe(item.linkItemId);
  }, 120_000);
});

function send(client: AuthorizedClient, method: string, url: string, body: unknown) {
  switch (method) {
    case 'get':
      return client.get(url);
    case 'delete':
      return client.delete(url);
    case 'post':
    case 'put':
    case 'patch':
      return client[method](url, body);
    default:
      throw new Error(`The sweep does not know how to send ${method}`);
  }
}

/**
 * A request body that passes validation, filled in as fully as the schema allows (every
 * property, not only the required ones) so that each operation is tried as a real edit.
 */
function exampleOf(schema: unknown): unknown {
  const node = resolve(schema) as Record<string, unknown>;
  if (node.example !== undefined) return node.example;
  if (node.default !== undefined) return node.default;
  const variants = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (variants) return exampleOf(variants.find((variant) => (resolve(variant) as { type?: unknown }).type !== 'null'));
  if (Array.isArray(node.enum)) return node.enum.find((value) => value !== null);
  const types = ([] as unknown[]).concat(node.type ?? 'object');
  const type = types.find((candidate) => candidate !== 'null');
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries((node.properties ?? {}) as Record<string, unknown>).map(([name, property]) => [name, valueOfProperty(property)]));
    case 'array':
      return Number(node.minItems ?? 0) > 0 ? [exampleOf(node.items)] : [];
    case 'string':
      return node.format === 'date' ? '2026-11-21' : node.format === 'date-time' ? '2026-11-21T00:00:00.000Z' : 'B was here';
    case 'number':
    case 'integer':
      return Number(node.minimum ?? 1);
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** A reference to something else of the caller's (a category, a tag) cannot be invented: null when allowed. */
function valueOfProperty(property: unknown): unknown {
  const node = resolve(property) as { format?: string; type?: unknown };
  const nullable = ([] as unknown[]).concat(node.type ?? []).includes('null');
  if (node.format === 'uuid' && nullable) return null;
  return exampleOf(property);
}

function resolve(schema: unknown): unknown {
  const reference = (schema as { $ref?: string } | undefined)?.$ref;
  if (!reference) return schema ?? {};
  return resolve(t.openApi.document.components?.schemas?.[reference.split('/').pop() as string]);
}
