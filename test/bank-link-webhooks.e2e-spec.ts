import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import type { JobDefinition } from '../src/infrastructure/jobs/job.js';
import type { BankLinkWebhookCode } from '../src/modules/link/bank-link.port.js';
import { linkItemStreamId } from '../src/modules/link/link-items/link-item.js';
import { SANDBOX_SIGNATURE_HEADER, signWebhook } from '../src/modules/link/sandbox-bank/index.js';
import { sandboxWebhook } from '../src/modules/link/sandbox-bank/sandbox-webhook-rules.js';
import { BANK_LINK_SYNC_JOB, type BankLinkSyncInput } from '../src/modules/link/sync/bank-link-sync.job.js';
import { EXPIRED_TOKENS_PRUNE_JOB } from '../src/modules/housekeeping/expired-tokens-prune.job.js';
import { serviceJobs } from '../src/service-jobs.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');
/** The secret the sandbox signs its webhooks with, configured as an operator would. */
const WEBHOOK_SECRET = randomBytes(32);
/** What the source held as the sandbox's secret until issue 21: anyone could read it. */
const SECRET_ONCE_IN_THE_SOURCE = 'ledgerline-sandbox-webhook-secret';
const WEBHOOK_PATH = '/v1/webhooks/bank-link';

/** The service's clock, held still and moved only by the tests. */
let now = new Date('2026-11-20T12:00:00.000Z');
const clock = { now: () => now };
const inAWeek = () => new Date(now.getTime() + 7 * 86_400_000).toISOString();

/** Every sync the service queues, as the job received it. */
const syncRuns: BankLinkSyncInput[] = [];
const recordingSyncs: typeof serviceJobs = (runtime) =>
  serviceJobs(runtime).map((job) => {
    if (job.name !== BANK_LINK_SYNC_JOB) return job;
    const sync = job as unknown as JobDefinition<BankLinkSyncInput>;
    return {
      ...sync,
      handle: async (input: BankLinkSyncInput) => {
        syncRuns.push(input);
        await sync.handle(input);
      },
    } as unknown as JobDefinition<never>;
  });

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock, env: { LINK_TOKEN_KEY, SANDBOX_WEBHOOK_SECRET: WEBHOOK_SECRET.toString('base64') }, jobs: recordingSyncs });
}, 180_000);
afterAll(() => t.close(), 180_000);

/** Every queued job finished, and every read model has every committed event. */
const settle = () => t.settle();

/** A user with a linked item whose first sync (queued by linking) has run. */
async function userWithItem(institutionId = 'ins_100001') {
  const { key, userId } = await t.newUser();
  const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId }).expect(200)).body as { publicToken: string };
  const item = (await t.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
  await settle();
  return { key, userId, item };
}

const fire = (key: string, linkItemId: string, code: BankLinkWebhookCode) =>
  t.as(key).post(`/v1/sandbox/link/items/${encodeURIComponent(linkItemId)}/fire-webhook`, { code });

/** The item as every read shows it: the item, its alert (if any) and each of its accounts. */
async function stateOf(key: string, linkItemId: string) {
  const items = (await t.as(key).get('/v1/link/items').expect(200)).body.items as Array<Record<string, unknown>>;
  const alerts = (await t.as(key).get('/v1/link/items/alerts').expect(200)).body.alerts as Array<Record<string, unknown>>;
  const accounts = ((await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Array<Record<string, unknown>>).filter((account) => account.linkItemId === linkItemId);
  const pick = (row: Record<string, unknown> | undefined) => row && { needsReauth: row.needsReauth, newAccountsAvailable: row.newAccountsAvailable, pendingDisconnectAt: row.pendingDisconnectAt };
  expect(accounts.length).toBeGreaterThan(0);
  return {
    item: pick(items.find((row) => row.linkItemId === linkItemId)),
    alert: pick(alerts.find((row) => row.linkItemId === linkItemId)) ?? null,
    // One state for all of the item's accounts, or the distinct ones if they disagree.
    accounts: [...new Set(accounts.map((account) => JSON.stringify(pick(account))))].map((json) => JSON.parse(json) as unknown),
  };
}

const signed = (code: BankLinkWebhookCode, linkItemId: string, options: { at?: Date; secret?: Buffer; webhookId?: string } = {}) =>
  signWebhook(sandboxWebhook(linkItemId, code, options.at ?? now, options.webhookId), options.secret ?? WEBHOOK_SECRET, options.at ?? now);

/** POSTs a body as the provider does (no user credential), checks the answer against the OpenAPI document, and waits for the read models. */
async function deliver(rawBody: string, headers: Record<string, string>) {
  const response = await request(t.server).post(WEBHOOK_PATH).set(headers).send(rawBody);
  expect(t.openApi.check('POST', WEBHOOK_PATH, response.status, response.headers['content-type'], response.body)).toEqual([]);
  await settle();
  return response;
}

async function itemEvents(itemUuid: string): Promise<string[]> {
  return (await t.runtime.eventStore.readStream(linkItemStreamId(itemUuid))).map((event) => event.type);
}

describe('bank-link webhooks fired from the sandbox', () => {
  it('turns each of the 7 codes into the state the item, its alerts and its accounts show', async () => {
    const { key, userId, item } = await userWithItem();
    const clear = { needsReauth: false, newAccountsAvailable: false, pendingDisconnectAt: null };
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: clear, alert: null, accounts: [clear] });

    expect((await fire(key, item.linkItemId, 'ITEM_LOGIN_REQUIRED').expect(200)).body).toEqual({ success: true });
    const loginRequired = { ...clear, needsReauth: true };
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: loginRequired, alert: loginRequired, accounts: [loginRequired] });

    await fire(key, item.linkItemId, 'LOGIN_REPAIRED').expect(200);
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: clear, alert: null, accounts: [clear] });

    await fire(key, item.linkItemId, 'ERROR').expect(200);
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: loginRequired, alert: loginRequired, accounts: [loginRequired] });
    await fire(key, item.linkItemId, 'LOGIN_REPAIRED').expect(200);

    await fire(key, item.linkItemId, 'PENDING_DISCONNECT').expect(200);
    const disconnectAt = inAWeek();
    const pending = { ...clear, pendingDisconnectAt: disconnectAt };
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: pending, alert: pending, accounts: [pending] });

    // The consent's expiration time is the date shown: an hour later, it expires an hour later.
    now = new Date(now.getTime() + 3_600_000);
    await fire(key, item.linkItemId, 'PENDING_EXPIRATION').expect(200);
    const expiring = { ...clear, pendingDisconnectAt: inAWeek() };
    expect(expiring.pendingDisconnectAt).not.toBe(disconnectAt);
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: expiring, alert: expiring, accounts: [expiring] });

    await fire(key, item.linkItemId, 'NEW_ACCOUNTS_AVAILABLE').expect(200);
    const withNewAccounts = { ...expiring, newAccountsAvailable: true };
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: withNewAccounts, alert: withNewAccounts, accounts: [withNewAccounts] });

    const transactionsBefore = (await t.as(key).get('/v1/transactions?limit=1').expect(200)).body;
    const runsBefore = syncRuns.length;
    await fire(key, item.linkItemId, 'SYNC_UPDATES_AVAILABLE').expect(200);
    await settle();
    expect(syncRuns.slice(runsBefore)).toEqual([{ userId, linkItemId: item.linkItemId, trace: webhookTrace }]);
    expect(await stateOf(key, item.linkItemId)).toEqual({ item: withNewAccounts, alert: withNewAccounts, accounts: [withNewAccounts] });
    // The sync ran to the end from the item's cursor: nothing imported twice.
    expect((await t.as(key).get('/v1/transactions?limit=1').expect(200)).body).toEqual(transactionsBefore);

    // Each transition is an event on the item's stream, appended by the system and naming the webhook as its cause.
    const events = await t.runtime.eventStore.readStream(linkItemStreamId(item.id));
    const transitions = events.filter((event) => event.metadata.causationId.startsWith('bank-link-webhook:'));
    expect(transitions.map((event) => event.type)).toEqual([
      'LinkItemLoginRequired',
      'LinkItemLoginRepaired',
      'LinkItemErrored',
      'LinkItemLoginRepaired',
      'LinkItemPendingDisconnect',
      'LinkItemPendingDisconnect',
      'LinkItemNewAccountsAvailable',
    ]);
    for (const event of transitions) expect(event.metadata).toMatchObject({ userId, actor: 'system' });
    expect(new Set(transitions.map((event) => event.metadata.causationId)).size).toBe(transitions.length);
  }, 120_000);

  it('answers the request that fired the webhook under its request id', async () => {
    const { key, item } = await userWithItem('ins_100002');
    const requestId = `fire-${randomUUID()}`;
    await fire(key, item.linkItemId, 'NEW_ACCOUNTS_AVAILABLE').set('X-Request-Id', requestId).expect(200);
    const [event] = (await t.runtime.eventStore.readStream(linkItemStreamId(item.id))).filter((recorded) => recorded.type === 'LinkItemNewAccountsAvailable');
    expect(event.metadata.requestId).toBe(requestId);
  }, 60_000);

  it("refuses a code it does not know (422), another user's or a disconnected item (404)", async () => {
    const { key, item } = await userWithItem('ins_100003');
    const refused = await t.as(key).post(`/v1/sandbox/link/items/${encodeURIComponent(item.linkItemId)}/fire-webhook`, { code: 'HOLDINGS_UPDATE' }).expect(422);
    expect(refused.body.error.issues).toEqual([{ code: 'invalid_enum_value', message: expect.any(String), path: ['code'] }]);
    await t.as(key).post(`/v1/sandbox/link/items/${encodeURIComponent(item.linkItemId)}/fire-webhook`, {}).expect(422);

    const other = await t.newUser();
    expect((await fire(other.key, item.linkItemId, 'ITEM_LOGIN_REQUIRED').expect(404)).body.code).toBe('NOT_FOUND');
    expect((await stateOf(key, item.linkItemId)).item).toMatchObject({ needsReauth: false });

    await t.as(key).delete(`/v1/link/items/${encodeURIComponent(item.linkItemId)}`).expect(200);
    expect((await fire(key, item.linkItemId, 'ITEM_LOGIN_REQUIRED').expect(404)).body.code).toBe('NOT_FOUND');
  }, 60_000);
});

describe('the provider’s webhook endpoint', () => {
  it('needs no user credential but a signature over the raw body, made within 5 minutes of the service’s clock: otherwise 401 and nothing changes', async () => {
    const { key, item } = await userWithItem('ins_100004');
    const eventsBefore = await itemEvents(item.id);
    const good = signed('ITEM_LOGIN_REQUIRED', item.linkItemId);
    const refusals: Array<[string, string, Record<string, string>]> = [
      ['no signature', good.rawBody, { 'content-type': 'application/json' }],
      ['another secret', ...signedParts(signed('ITEM_LOGIN_REQUIRED', item.linkItemId, { secret: randomBytes(32) }))],
      ['the secret the source once held', ...signedParts(signed('ITEM_LOGIN_REQUIRED', item.linkItemId, { secret: Buffer.from(SECRET_ONCE_IN_THE_SOURCE) }))],
      ['a tampered body', good.rawBody.replace('ITEM_LOGIN_REQUIRED', 'ERROR'), good.headers],
      ['a body re-serialised', JSON.stringify(JSON.parse(good.rawBody), null, 1), good.headers],
      ['signed 301 s before the service’s clock', ...signedParts(signed('ITEM_LOGIN_REQUIRED', item.linkItemId, { at: new Date(now.getTime() - 301_000) }))],
      ['signed 301 s after it', ...signedParts(signed('ITEM_LOGIN_REQUIRED', item.linkItemId, { at: new Date(now.getTime() + 301_000) }))],
      ['a malformed signature header', good.rawBody, { ...good.headers, [SANDBOX_SIGNATURE_HEADER]: 'v1=deadbeef' }],
    ];
    for (const [label, rawBody, headers] of refusals) {
      const response = await deliver(rawBody, headers);
      expect([label, response.status, response.body]).toEqual([label, 401, { error: { code: 'UNAUTHORIZED', message: expect.any(String) } }]);
    }
    expect(await itemEvents(item.id)).toEqual(eventsBefore);
    expect((await stateOf(key, item.linkItemId)).item).toMatchObject({ needsReauth: false });

    // A user's own API key is no substitute for the signature.
    const withKey = await request(t.server).post(WEBHOOK_PATH).set({ 'content-type': 'application/json', authorization: `Bearer ${key}` }).send(good.rawBody);
    expect(withKey.status).toBe(401);

    // Signed 299 s ago is within the bound; the signature header's name is case-insensitive.
    const recent = signed('ITEM_LOGIN_REQUIRED', item.linkItemId, { at: new Date(now.getTime() - 299_000) });
    const accepted = await deliver(recent.rawBody, { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER.toUpperCase()]: recent.headers[SANDBOX_SIGNATURE_HEADER]! });
    expect([accepted.status, accepted.body]).toEqual([200, { success: true, message: 'Webhook received' }]);
    expect(await stateOf(key, item.linkItemId)).toMatchObject({ item: { needsReauth: true }, alert: { needsReauth: true } });
  }, 60_000);

  it('applies a webhook id once: a replay answers 200 and has no second effect', async () => {
    const { key, item } = await userWithItem('ins_100005');
    const loginRequired = signed('ITEM_LOGIN_REQUIRED', item.linkItemId);
    expect((await deliver(loginRequired.rawBody, loginRequired.headers)).body.message).toBe('Webhook received');
    const repaired = signed('LOGIN_REPAIRED', item.linkItemId);
    await deliver(repaired.rawBody, repaired.headers);
    const eventsBefore = await itemEvents(item.id);

    const replay = await deliver(loginRequired.rawBody, loginRequired.headers);
    expect([replay.status, replay.body]).toEqual([200, { success: true, message: 'Webhook already received: nothing done again' }]);
    expect((await stateOf(key, item.linkItemId)).item).toMatchObject({ needsReauth: false });
    expect(await itemEvents(item.id)).toEqual(eventsBefore);

    const received = await t.runtime.database.db.selectFrom('bank_link_webhooks_received').selectAll().where('link_item_id', '=', item.linkItemId).orderBy('code').execute();
    expect(received.map((row) => [row.webhook_id, row.code, row.outcome])).toEqual([
      [JSON.parse(loginRequired.rawBody).webhook_id, 'ITEM_LOGIN_REQUIRED', 'applied'],
      [JSON.parse(repaired.rawBody).webhook_id, 'LOGIN_REPAIRED', 'applied'],
    ]);

    // A webhook applied but never recorded (the service stopped in between) is known by its events on the item.
    const errored = signed('ERROR', item.linkItemId);
    await deliver(errored.rawBody, errored.headers);
    await t.runtime.database.db.deleteFrom('bank_link_webhooks_received').where('webhook_id', '=', JSON.parse(errored.rawBody).webhook_id).execute();
    const repairedAgain = signed('LOGIN_REPAIRED', item.linkItemId);
    await deliver(repairedAgain.rawBody, repairedAgain.headers);
    expect((await deliver(errored.rawBody, errored.headers)).body.message).toBe('Webhook already received: nothing done again');
    expect((await stateOf(key, item.linkItemId)).item).toMatchObject({ needsReauth: false });
    const recordedLate = await t.runtime.database.db.selectFrom('bank_link_webhooks_received').select('outcome').where('webhook_id', '=', JSON.parse(errored.rawBody).webhook_id).executeTakeFirstOrThrow();
    expect(recordedLate.outcome).toBe('applied');
  }, 60_000);

  it('queues a sync for SYNC_UPDATES_AVAILABLE, once per webhook id', async () => {
    const { userId, item } = await userWithItem('ins_100002');
    const runsBefore = syncRuns.length;
    const updates = signed('SYNC_UPDATES_AVAILABLE', item.linkItemId);
    await deliver(updates.rawBody, updates.headers);
    expect(syncRuns.slice(runsBefore)).toEqual([{ userId, linkItemId: item.linkItemId, trace: webhookTrace }]);
    await deliver(updates.rawBody, updates.headers);
    expect(syncRuns.length).toBe(runsBefore + 1);
  }, 60_000);

  it('answers 200 and changes nothing for an unknown item, an unknown code, a disconnected item, or a body without an id', async () => {
    const { key, item } = await userWithItem('ins_100003');
    const eventsBefore = await itemEvents(item.id);
    const unknownItem = signed('ITEM_LOGIN_REQUIRED', 'no-such-item');
    const sign = (body: unknown) => signRaw(JSON.stringify(body));
    const unknownCode = sign({ webhook_id: randomUUID(), webhook_type: 'HOLDINGS', webhook_code: 'DEFAULT_UPDATE', item_id: item.linkItemId });
    const withoutId = sign({ webhook_type: 'ITEM', webhook_code: 'ITEM_LOGIN_REQUIRED', item_id: item.linkItemId, error: { error_code: 'ITEM_LOGIN_REQUIRED', error_message: 'x' } });
    const notAnObject = sign([1, 2, 3]);
    for (const [label, delivery] of [['unknown item', unknownItem], ['unknown code', unknownCode], ['no webhook id', withoutId], ['not an object', notAnObject]] as const) {
      const response = await deliver(delivery.rawBody, delivery.headers);
      expect([label, response.status, response.body]).toEqual([label, 200, { success: true, message: 'Webhook received and ignored' }]);
    }
    expect(await itemEvents(item.id)).toEqual(eventsBefore);

    // Correctly signed but not JSON: the edge refuses it (400) before the signature is read, as for any operation.
    const notJson = signRaw('{"webhook_id": ');
    const malformed = await deliver(notJson.rawBody, notJson.headers);
    expect([malformed.status, malformed.body]).toEqual([400, { code: 'BAD_REQUEST', error: 'The request body is not valid JSON.' }]);
    const asText = await deliver(unknownItem.rawBody, { ...unknownItem.headers, 'content-type': 'text/plain' });
    expect([asText.status, asText.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);

    await t.as(key).delete(`/v1/link/items/${encodeURIComponent(item.linkItemId)}`).expect(200);
    const afterDisconnect = signed('ITEM_LOGIN_REQUIRED', item.linkItemId);
    expect((await deliver(afterDisconnect.rawBody, afterDisconnect.headers)).body).toEqual({ success: true, message: 'Webhook received and ignored' });
    expect((await itemEvents(item.id)).at(-1)).toBe('LinkItemDisconnected');
  }, 60_000);
});

describe('received webhook ids', () => {
  it('are kept while a delivery of them could still verify, then pruned by the expired-tokens-prune job; a replay after that is stale (401)', async () => {
    const { key, item } = await userWithItem('ins_100003');
    const loginRequired = signed('ITEM_LOGIN_REQUIRED', item.linkItemId);
    await deliver(loginRequired.rawBody, loginRequired.headers);
    const webhookId = JSON.parse(loginRequired.rawBody).webhook_id as string;
    const receivedRow = () => t.runtime.database.db.selectFrom('bank_link_webhooks_received').select('webhook_id').where('webhook_id', '=', webhookId).executeTakeFirst();
    const prune = async () => {
      await t.runtime.jobs.enqueue(EXPIRED_TOKENS_PRUNE_JOB, {}, { jobId: `prune-${randomUUID()}` });
      await settle();
    };

    // Signed at most 5 minutes either side of the receiver's clock: a replay can verify up to 10 minutes after the first receipt.
    now = new Date(now.getTime() + 10 * 60_000);
    await prune();
    expect(await receivedRow()).toEqual({ webhook_id: webhookId });
    now = new Date(now.getTime() + 5 * 60_000 + 1000);
    await prune();
    expect(await receivedRow()).toBeUndefined();

    const repaired = signed('LOGIN_REPAIRED', item.linkItemId);
    await deliver(repaired.rawBody, repaired.headers);
    const replay = await deliver(loginRequired.rawBody, loginRequired.headers);
    expect([replay.status, replay.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await stateOf(key, item.linkItemId)).item).toMatchObject({ needsReauth: false });
  }, 60_000);
});

describe('what a signed webhook may hold', () => {
  const loginRequired = (linkItemId: string, error: { error_code: string; error_message?: string }, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'ITEM_LOGIN_REQUIRED', webhook_id: randomUUID(), item_id: linkItemId, error, environment: 'sandbox', ...extra });
  const receivedIds = async (linkItemId: string) =>
    (await t.runtime.database.db.selectFrom('bank_link_webhooks_received').select('webhook_id').where('link_item_id', '=', linkItemId).execute()).map((row) => row.webhook_id).sort();

  /** Each signed body answers 400 and changes nothing: no event, no receipt, the item as it was. */
  async function expectEachRefused(key: string, item: { id: string; linkItemId: string }, bodies: ReadonlyArray<[string, string]>): Promise<void> {
    const eventsBefore = await itemEvents(item.id);
    const receivedBefore = await receivedIds(item.linkItemId);
    for (const [label, rawBody] of bodies) {
      const delivery = signRaw(rawBody);
      const response = await deliver(delivery.rawBody, delivery.headers);
      expect([label, response.status, response.body]).toEqual([label, 400, { code: 'BAD_REQUEST', error: expect.any(String) }]);
    }
    expect(await itemEvents(item.id)).toEqual(eventsBefore);
    expect(await receivedIds(item.linkItemId)).toEqual(receivedBefore);
    expect((await stateOf(key, item.linkItemId)).item).toMatchObject({ needsReauth: false });
  }

  it('bounds the code to 64 characters, the error code to 128 and the error message to 1,000: longer → 400 and nothing stored', async () => {
    const { key, item } = await userWithItem('ins_100001');
    const tooLong: Array<[string, string]> = [
      ['a 65-character code', JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'C'.repeat(65), webhook_id: randomUUID(), item_id: item.linkItemId })],
      ['a 129-character error code', loginRequired(item.linkItemId, { error_code: 'E'.repeat(129), error_message: 'm' })],
      ['a 1,001-character error message', loginRequired(item.linkItemId, { error_code: 'ITEM_LOGIN_REQUIRED', error_message: 'm'.repeat(1001) })],
    ];
    await expectEachRefused(key, item, tooLong);

    // At the bounds, each is received.
    const unknownCode = signRaw(JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'C'.repeat(64), webhook_id: randomUUID(), item_id: item.linkItemId }));
    expect((await deliver(unknownCode.rawBody, unknownCode.headers)).body).toEqual({ success: true, message: 'Webhook received and ignored' });
    const longest = signRaw(loginRequired(item.linkItemId, { error_code: 'E'.repeat(128), error_message: 'm'.repeat(1000) }));
    expect((await deliver(longest.rawBody, longest.headers)).body).toEqual({ success: true, message: 'Webhook received' });
    const [recorded] = (await t.runtime.eventStore.readStream(linkItemStreamId(item.id))).filter((event) => event.type === 'LinkItemLoginRequired');
    expect(recorded.data).toMatchObject({ error: { errorCode: 'E'.repeat(128), errorMessage: 'm'.repeat(1000) } });
  }, 60_000);

  it('answers 400 to a correctly signed body holding NUL or a lone surrogate anywhere, and stores nothing', async () => {
    const { key, item } = await userWithItem('ins_100002');
    const unstorable: Array<[string, string]> = [
      ['NUL in the error message', loginRequired(item.linkItemId, { error_code: 'ITEM_LOGIN_REQUIRED', error_message: 'bad\u0000login' })],
      ['a lone surrogate in the error message', loginRequired(item.linkItemId, { error_code: 'ITEM_LOGIN_REQUIRED', error_message: 'bad \ud800 login' })],
      ['a lone low surrogate in the error code', loginRequired(item.linkItemId, { error_code: 'ITEM\udc00', error_message: 'x' })],
      ['NUL in the code', JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'LOGIN_REPAIRED\u0000', webhook_id: randomUUID(), item_id: item.linkItemId })],
      ['a lone surrogate in an unknown code', JSON.stringify({ webhook_type: 'ITEM', webhook_code: '\ud83d', webhook_id: randomUUID(), item_id: item.linkItemId })],
      ['NUL in a field nobody reads', loginRequired(item.linkItemId, { error_code: 'ITEM_LOGIN_REQUIRED' }, { environment: '\u0000' })],
      ['a lone surrogate in a key', loginRequired(item.linkItemId, { error_code: 'ITEM_LOGIN_REQUIRED' }, { ['note\udfff']: 1 })],
      ['NUL deep in an array', loginRequired(item.linkItemId, { error_code: 'ITEM_LOGIN_REQUIRED' }, { extra: [[{ a: ['\u0000'] }]] })],
    ];
    // JSON.stringify writes NUL and a lone surrogate as \\u escapes: the JSON text is valid, its strings are not storable.
    await expectEachRefused(key, item, unstorable);
    // A paired surrogate is a character like any other.
    const emoji = signRaw(loginRequired(item.linkItemId, { error_code: 'ITEM_LOGIN_REQUIRED', error_message: 'log in again \ud83d\ude00' }));
    expect((await deliver(emoji.rawBody, emoji.headers)).body).toEqual({ success: true, message: 'Webhook received' });
  }, 60_000);
});

describe('a service with no SANDBOX_WEBHOOK_SECRET', () => {
  let own: TestApp;
  let dataDir: string;
  const logLines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'webhook-secret-'));
    const logTo = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    own = await startTestApp({ clock, env: { LINK_TOKEN_KEY, DATA_DIR: dataDir }, logTo });
  }, 180_000);
  afterAll(async () => {
    // What the service logged as an error, to tell a failure here from one of the service.
    const errors = logLines.filter((line) => Number(line.level) >= 50);
    if (errors.length > 0) console.error(`the service logged ${errors.length} errors:\n${errors.map((line) => JSON.stringify(line).slice(0, 2000)).join('\n')}`);
    await own.close();
  }, 180_000);

  it('generates its secret once into DATA_DIR/sandbox-webhook.key (0600) and verifies webhooks with it; the secret the source once held is refused', async () => {
    const file = path.join(dataDir, 'sandbox-webhook.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const secret = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    expect(secret).toHaveLength(32);

    const { key } = await own.newUser();
    const { publicToken } = (await own.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100004' }).expect(200)).body as { publicToken: string };
    const item = (await own.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { linkItemId: string };
    // The first sync's thousands of events, projected before a write that waits for its read models.
    await own.settle();
    const post = (delivery: { rawBody: string; headers: Readonly<Record<string, string>> }) => request(own.server).post(WEBHOOK_PATH).set(delivery.headers).send(delivery.rawBody);
    const forged = await post(signWebhook(sandboxWebhook(item.linkItemId, 'ITEM_LOGIN_REQUIRED', now), Buffer.from(SECRET_ONCE_IN_THE_SOURCE), now));
    expect([forged.status, forged.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    const genuine = await post(signWebhook(sandboxWebhook(item.linkItemId, 'ITEM_LOGIN_REQUIRED', now), secret, now));
    expect([genuine.status, genuine.body]).toEqual([200, { success: true, message: 'Webhook received' }]);
    // The sandbox's own firing signs with the same secret.
    await own.as(key).post(`/v1/sandbox/link/items/${encodeURIComponent(item.linkItemId)}/fire-webhook`, { code: 'LOGIN_REPAIRED' }).expect(200);
  }, 60_000);

  it("logs the webhook's code in clear (it is not a secret), while an OAuth code stays redacted", async () => {
    const { key } = await own.newUser();
    const { publicToken } = (await own.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100005' }).expect(200)).body as { publicToken: string };
    const item = (await own.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { linkItemId: string };
    await own.settle();
    await own.as(key).post(`/v1/sandbox/link/items/${encodeURIComponent(item.linkItemId)}/fire-webhook`, { code: 'NEW_ACCOUNTS_AVAILABLE' }).expect(200);
    const received = logLines.filter((line) => line.msg === 'bank-link webhook received' && line.linkItemId === item.linkItemId);
    expect(received).toEqual([expect.objectContaining({ webhookCode: 'NEW_ACCOUNTS_AVAILABLE', outcome: 'applied' })]);
    expect(JSON.stringify(received)).not.toContain('[redacted]');
    own.runtime.log.info({ code: 'oauth-code-1f2e' }, 'an OAuth callback');
    expect(logLines.find((line) => line.msg === 'an OAuth callback')).toMatchObject({ code: '[redacted]' });
  }, 60_000);
});

describe('bank-link webhooks with no provider configured', () => {
  let none: TestApp;
  beforeAll(async () => {
    none = await startTestApp({ clock, env: { BANK_LINK_PROVIDER: 'none', LINK_TOKEN_KEY } });
  }, 180_000);
  afterAll(() => none.close(), 180_000);

  it('serves no fire-webhook and verifies no webhook', async () => {
    const { key } = await none.newUser();
    expect((await none.as(key).post('/v1/sandbox/link/items/some-item/fire-webhook', { code: 'LOGIN_REPAIRED' }).expect(404)).body.code).toBe('NOT_FOUND');
    const delivery = signed('LOGIN_REPAIRED', 'some-item');
    const response = await request(none.server).post(WEBHOOK_PATH).set(delivery.headers).send(delivery.rawBody);
    expect([response.status, response.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
  });
});

function signedParts(delivery: { rawBody: string; headers: Readonly<Record<string, string>> }): [string, Record<string, string>] {
  return [delivery.rawBody, { ...delivery.headers }];
}

/** Any body signed with the sandbox's scheme and secret, at the service's time: a well-signed body the sandbox would never send. */
function signRaw(rawBody: string, secret: Buffer = WEBHOOK_SECRET): { rawBody: string; headers: Record<string, string> } {
  const seconds = String(Math.floor(now.getTime() / 1000));
  const mac = createHmac('sha256', secret).update(`${seconds}.${rawBody}`).digest('hex');
  return { rawBody, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: `t=${seconds},v1=${mac}` } };
}

/** A sync a webhook queues shares the webhook request's correlation and names that request as its cause. */
const webhookTrace = { correlationId: expect.any(String), causationId: expect.any(String) };
