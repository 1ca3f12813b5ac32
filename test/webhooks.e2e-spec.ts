import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './support/test-app.js';
import { type ReceivedWebhook, verifyLedgerlineSignature, WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Outbound webhooks end to end: endpoints through the API, every event type driven through the
 * API (and the sandbox bank), a local receiver verifying each signature, retries of one delivery
 * with the same id, order per endpoint, the delivery log, and private URLs refused without the flag.
 */
let t: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_BASE_MS: '200', LINK_TOKEN_KEY: randomBytes(32).toString('base64'), RECURRING_REFRESH_DEBOUNCE_MS: '300' } });
}, 180_000);
afterAll(async () => {
  await t.close();
  await receiver.close();
}, 180_000);

async function newEndpoint(key: string, path: string, eventTypes?: string[]) {
  const created = await t.as(key).post('/v1/webhooks/endpoints', { url: receiver.url(path), ...(eventTypes ? { eventTypes } : {}) }).expect(201);
  return created.body as { id: string; secret: string; url: string };
}

const firstAttempts = (path: string) => receiver.on(path).filter((webhook) => webhook.attempt === 1);

describe('webhook endpoints', () => {
  it('creates an endpoint with its secret shown once, lists, changes and deletes it; another user sees none of it', async () => {
    const { key } = await t.newUser();
    const created = await t.as(key).post('/v1/webhooks/endpoints', { url: 'https://example.com/hooks', eventTypes: ['transaction.created'], description: 'Spreadsheet' }).expect(201);
    expect(created.body).toEqual({ id: expect.any(String), url: 'https://example.com/hooks', eventTypes: ['transaction.created'], description: 'Spreadsheet', secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/), createdAt: expect.any(String), disabledAt: null });
    const id = created.body.id as string;

    const listed = await t.as(key).get('/v1/webhooks/endpoints').expect(200);
    expect(listed.body.endpoints).toEqual([{ id, url: 'https://example.com/hooks', eventTypes: ['transaction.created'], description: 'Spreadsheet', createdAt: created.body.createdAt, disabledAt: null }]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    const patched = await t.as(key).patch(`/v1/webhooks/endpoints/${id}`, { eventTypes: [], description: null, disabled: true }).expect(200);
    expect(patched.body).toMatchObject({ id, eventTypes: [], description: null, disabledAt: expect.any(String) });
    expect(patched.body.secret).toBeUndefined();
    expect((await t.as(key).patch(`/v1/webhooks/endpoints/${id}`, { disabled: false }).expect(200)).body.disabledAt).toBeNull();

    const other = await t.newUser();
    await t.as(other.key).patch(`/v1/webhooks/endpoints/${id}`, { description: 'mine' }).expect(404);
    await t.as(other.key).delete(`/v1/webhooks/endpoints/${id}`).expect(404);
    await t.as(other.key).post(`/v1/webhooks/endpoints/${id}/test`).expect(404);
    await t.as(other.key).get(`/v1/webhooks/endpoints/${id}/deliveries`).expect(404);
    expect((await t.as(other.key).get('/v1/webhooks/endpoints').expect(200)).body.endpoints).toEqual([]);

    await t.as(key).delete(`/v1/webhooks/endpoints/${id}`).expect(204);
    await t.as(key).delete(`/v1/webhooks/endpoints/${id}`).expect(404);
    expect((await t.as(key).get('/v1/webhooks/endpoints').expect(200)).body.endpoints).toEqual([]);
  });

  it('refuses an unknown event type (422), a URL that is not http(s) (400) and bodies past their bounds (422)', async () => {
    const { key } = await t.newUser();
    const unknown = await t.as(key).post('/v1/webhooks/endpoints', { url: 'https://example.com/', eventTypes: ['transaction.created', 'transaction.exploded'] }).expect(422);
    expect(unknown.body.error.issues[0].path).toEqual(['eventTypes', 1]);
    const ftp = await t.as(key).post('/v1/webhooks/endpoints', { url: 'ftp://example.com/' }).expect(400);
    expect(ftp.body.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
    await t.as(key).post('/v1/webhooks/endpoints', { url: `https://example.com/${'a'.repeat(2048)}` }).expect(422);
    await t.as(key).post('/v1/webhooks/endpoints', { url: 'https://example.com/', description: 'd'.repeat(501) }).expect(422);
    await t.as(key).post('/v1/webhooks/endpoints', { url: 'https://example.com/', surprise: true }).expect(422);
    await t.as(key).get('/v1/webhooks/endpoints/00000000-0000-4000-8000-000000000000/deliveries?limit=0').expect(422);
    await t.as(key).get('/v1/webhooks/endpoints/not-an-id/deliveries').expect(404);
  });
});

describe('webhook deliveries', () => {
  it("sends each of the user's changes, signed, in order, with data as the API shows it", async () => {
    const { key } = await t.newUser();
    const endpoint = await newEndpoint(key, '/everything');
    // Each change is sent before the next is made, so each `data` can be compared with what the API answered.
    const sent = (count: number) => receiver.until(() => firstAttempts('/everything').length >= count);
    const account = (await t.as(key).post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 1000 }).expect(201)).body as { id: string };
    await sent(1);
    const created = (await t.as(key).post('/v1/transactions', { accountId: account.id, amount: -12.5, date: '2026-11-20', name: 'Corner Cafe' }).expect(201)).body as { id: string };
    await sent(2);
    const edited = (await t.as(key).patch(`/v1/transactions/${created.id}`, { notes: 'with Sam' }).expect(200)).body as { id: string };
    await sent(3);
    const balanced = (await t.as(key).patch(`/v1/accounts/${account.id}/balance`, { current: 987.5 }).expect(200)).body;
    await sent(4);
    await t.as(key).delete(`/v1/transactions/${created.id}`).expect(200);
    await t.as(key).post(`/v1/webhooks/endpoints/${endpoint.id}/test`).expect(202);
    const expectedTypes = ['account.created', 'transaction.created', 'transaction.updated', 'account.updated', 'transaction.deleted', 'webhook.test'];
    await sent(expectedTypes.length);

    const got = receiver.on('/everything');
    expect(got.map((webhook) => webhook.type)).toEqual(expectedTypes);
    for (const webhook of got) {
      expect(verifyLedgerlineSignature(endpoint.secret, webhook.rawBody, webhook.headers['ledgerline-signature'] as string)).toBe(true);
      expect(verifyLedgerlineSignature(`${endpoint.secret}x`, webhook.rawBody, webhook.headers['ledgerline-signature'] as string)).toBe(false);
      expect(webhook.headers['ledgerline-event-id']).toBe(webhook.id);
      expect(webhook.attempt).toBe(1);
      expect(new Date(webhook.createdAt).toISOString()).toBe(webhook.createdAt);
    }
    const [accountCreated, transactionCreated, transactionUpdated, accountUpdated, transactionDeleted] = got as [ReceivedWebhook, ReceivedWebhook, ReceivedWebhook, ReceivedWebhook, ReceivedWebhook];
    expect(accountCreated.data).toMatchObject({ id: account.id, name: 'Checking' });
    expect(transactionCreated.data).toMatchObject({ id: created.id, name: 'Corner Cafe', amount: -12.5 });
    expect(transactionUpdated.data).toEqual(edited);
    expect(accountUpdated.data).toMatchObject({ id: account.id });
    expect(accountUpdated.data).toEqual(balanced);
    expect(transactionDeleted.data).toEqual({ id: created.id });

    // The receiver has the last webhook a moment before its sender records the answer.
    const readLog = async () => (await t.as(key).get(`/v1/webhooks/endpoints/${endpoint.id}/deliveries?limit=4`).expect(200)).body;
    let log = await readLog();
    for (const deadline = Date.now() + 10_000; log.deliveries.some((delivery: { status: string }) => delivery.status !== 'succeeded') && Date.now() < deadline; log = await readLog()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(log.deliveries.map((delivery: { eventType: string }) => delivery.eventType)).toEqual(['webhook.test', 'transaction.deleted', 'account.updated', 'transaction.updated']);
    expect(log.deliveries[0]).toEqual({ id: expect.any(String), eventId: got[5]?.id, eventType: 'webhook.test', status: 'succeeded', attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null, createdAt: expect.any(String), deliveredAt: expect.any(String) });
    expect(log.hasMore).toBe(true);
    const rest = (await t.as(key).get(`/v1/webhooks/endpoints/${endpoint.id}/deliveries?cursor=${log.nextCursor as string}`).expect(200)).body;
    expect(rest.deliveries.map((delivery: { eventType: string }) => delivery.eventType)).toEqual(['transaction.created', 'account.created']);
    expect(rest).toMatchObject({ hasMore: false, nextCursor: null });
    await t.as(key).get(`/v1/webhooks/endpoints/${endpoint.id}/deliveries?cursor=not-a-cursor`).expect(422);
  });

  it('retries a delivery the endpoint refused with the same id and a growing attempt number, holding the endpoint’s later events behind it', async () => {
    const { key } = await t.newUserWithAccount();
    const endpoint = await newEndpoint(key, '/flaky', ['webhook.test', 'transaction.created']);
    let refusals = 3;
    receiver.answer = (webhook) => (webhook.path === '/flaky' && webhook.type === 'webhook.test' && refusals-- > 0 ? 500 : 200);
    try {
      await t.as(key).post(`/v1/webhooks/endpoints/${endpoint.id}/test`).expect(202);
      const accountId = (await t.as(key).get('/v1/accounts').expect(200)).body.accounts[0].id as string;
      await t.as(key).post('/v1/transactions', { accountId, amount: 5, date: '2026-11-21', name: 'Refund' }).expect(201);
      await receiver.until(() => receiver.on('/flaky').some((webhook) => webhook.type === 'transaction.created'));
    } finally {
      receiver.answer = () => 200;
    }
    const got = receiver.on('/flaky');
    expect(got.map((webhook) => `${webhook.type}#${webhook.attempt}`)).toEqual(['webhook.test#1', 'webhook.test#2', 'webhook.test#3', 'webhook.test#4', 'transaction.created#1']);
    expect(new Set(got.slice(0, 4).map((webhook) => webhook.id)).size).toBe(1);
    for (const webhook of got) expect(verifyLedgerlineSignature(endpoint.secret, webhook.rawBody, webhook.headers['ledgerline-signature'] as string)).toBe(true);
    // Waits doubled from the 200 ms base: 200, 400, 800.
    expect((got[3] as ReceivedWebhook).receivedAt - (got[0] as ReceivedWebhook).receivedAt).toBeGreaterThanOrEqual(1_300);

    const log = (await t.as(key).get(`/v1/webhooks/endpoints/${endpoint.id}/deliveries`).expect(200)).body;
    expect(log.deliveries[1]).toMatchObject({ eventType: 'webhook.test', status: 'succeeded', attempts: 4, lastStatusCode: 200, lastError: null });
  });

  it("keeps sending another user's deliveries while one endpoint holds its request open", async () => {
    const stuck = await t.newUserWithAccount();
    const other = await t.newUserWithAccount();
    await newEndpoint(stuck.key, '/stuck', ['transaction.created']);
    await newEndpoint(other.key, '/prompt', ['transaction.created']);
    let release: () => void = () => undefined;
    const held = new Promise<number>((resolve) => {
      release = () => resolve(200);
    });
    receiver.answer = (webhook) => (webhook.path === '/stuck' ? held : 200);
    try {
      await t.as(stuck.key).post('/v1/transactions', { accountId: stuck.accountId, amount: -3, date: '2026-11-21', name: 'Stuck 1' }).expect(201);
      await t.as(stuck.key).post('/v1/transactions', { accountId: stuck.accountId, amount: -4, date: '2026-11-21', name: 'Stuck 2' }).expect(201);
      await receiver.until(() => receiver.on('/stuck').length === 1);
      for (const name of ['Prompt 1', 'Prompt 2', 'Prompt 3']) await t.as(other.key).post('/v1/transactions', { accountId: other.accountId, amount: -1, date: '2026-11-21', name }).expect(201);
      // Every one of the other user's webhooks arrives while the stuck endpoint's first is still open.
      await receiver.until(() => firstAttempts('/prompt').length === 3);
      expect(firstAttempts('/prompt').map((webhook) => webhook.data.name)).toEqual(['Prompt 1', 'Prompt 2', 'Prompt 3']);
      expect(receiver.on('/stuck').map((webhook) => webhook.data.name)).toEqual(['Stuck 1']);
    } finally {
      release();
      receiver.answer = () => 200;
    }
    // Then the stuck endpoint's queue moves on, in order.
    await receiver.until(() => receiver.on('/stuck').length === 2);
    expect(receiver.on('/stuck').map((webhook) => webhook.data.name)).toEqual(['Stuck 1', 'Stuck 2']);
  });

  it('marks a delivery failed after eight refused attempts, and sends the next one', async () => {
    const { key } = await t.newUser();
    const endpoint = await newEndpoint(key, '/dead', ['webhook.test']);
    const base = 200;
    // A shorter schedule would need another app: 8 attempts at 200 ms doubling take about 25 s.
    receiver.answer = (webhook) => (webhook.path === '/dead' && receiver.on('/dead').filter((w) => w.id === webhook.id).length <= 8 && receiver.on('/dead')[0]?.id === webhook.id ? 503 : 200);
    try {
      await t.as(key).post(`/v1/webhooks/endpoints/${endpoint.id}/test`).expect(202);
      await t.as(key).post(`/v1/webhooks/endpoints/${endpoint.id}/test`).expect(202);
      await receiver.until(() => new Set(receiver.on('/dead').map((webhook) => webhook.id)).size === 2, base * 2 ** 8 + 15_000);
    } finally {
      receiver.answer = () => 200;
    }
    const log = (await t.as(key).get(`/v1/webhooks/endpoints/${endpoint.id}/deliveries`).expect(200)).body;
    expect(log.deliveries.map((delivery: { status: string; attempts: number; lastStatusCode: number }) => [delivery.status, delivery.attempts, delivery.lastStatusCode])).toEqual([
      ['succeeded', 1, 200],
      ['failed', 8, 503],
    ]);
    expect(log.deliveries[1].lastError).toBe('HTTP 503');
  }, 60_000);

  it('sends link_item.updated, sync.completed and recurring_stream.updated for a linked sandbox item, only the subscribed types', async () => {
    const { key } = await t.newUser();
    const endpoint = await newEndpoint(key, '/bank', ['link_item.updated', 'sync.completed', 'recurring_stream.updated']);
    const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100003' }).expect(200)).body as { publicToken: string };
    const item = (await t.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
    await t.settle();
    const streams = (await t.as(key).get('/v1/recurring').expect(200)).body.streams as Array<{ id: string }>;
    expect(streams.length).toBeGreaterThan(0);
    const sentStreams = () => new Set(receiver.on('/bank').filter((webhook) => webhook.type === 'recurring_stream.updated').map((webhook) => webhook.data.id));
    // The recurring refresh may run while the sync still pages (its debounce is short here): its webhooks can come before the sync's end.
    await receiver.until(() => streams.every((stream) => sentStreams().has(stream.id)) && receiver.on('/bank').some((webhook) => webhook.type === 'sync.completed'));
    const got = receiver.on('/bank');
    expect(new Set(got.map((webhook) => webhook.type))).toEqual(new Set(['link_item.updated', 'sync.completed', 'recurring_stream.updated']));
    for (const webhook of got) expect(verifyLedgerlineSignature(endpoint.secret, webhook.rawBody, webhook.headers['ledgerline-signature'] as string)).toBe(true);
    expect(got[0]).toMatchObject({ type: 'link_item.updated', data: { id: item.id, linkItemId: item.linkItemId } });
    const firstSync = got.find((webhook) => webhook.type === 'sync.completed') as ReceivedWebhook;
    expect(firstSync.data).toMatchObject({ linkItemId: item.linkItemId, added: expect.any(Number) });
    const served = streams[0] as { id: string };
    expect(got.filter((webhook) => webhook.data.id === served.id).at(-1)?.data).toEqual(served);
    // Ordered as the events happened: the item was linked before its sync's pages came in.
    expect(got.findIndex((webhook) => webhook.type === 'sync.completed')).toBeGreaterThan(0);
  });
});

describe('webhook URLs without WEBHOOK_ALLOW_PRIVATE_URLS', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp();
  }, 180_000);
  afterAll(() => strict.close(), 180_000);

  it.each(['http://127.0.0.1:8080/hooks', 'http://localhost/hooks', 'http://10.0.0.7/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[fd00::1]/'])(
    'refuses %s with 400 WEBHOOK_URL_NOT_ALLOWED, at create and at update',
    async (url) => {
      const { key } = await strict.newUser();
      const refused = await strict.as(key).post('/v1/webhooks/endpoints', { url }).expect(400);
      expect(refused.body).toEqual({ code: 'WEBHOOK_URL_NOT_ALLOWED', error: expect.any(String) });
      const endpoint = (await strict.as(key).post('/v1/webhooks/endpoints', { url: 'https://93.184.216.34/hooks' }).expect(201)).body as { id: string };
      expect((await strict.as(key).patch(`/v1/webhooks/endpoints/${endpoint.id}`, { url }).expect(400)).body.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
    },
  );
});
