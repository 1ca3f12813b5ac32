import { createHash, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import { type ApiAnswer, type ApiRequest, fixture, startRecordedApiServer } from './recorded-api-server.js';
import { cutSyncPage, type SyncLogUpdate } from './plaid-mock-sync.js';

/**
 * Plaid's API on 127.0.0.1, answering with the exchanges recorded under test/fixtures/plaid (the
 * shapes of Plaid's documented responses and errors), with the state a Plaid sandbox keeps:
 * link tokens (update mode included), single-use public tokens, items with their access token,
 * error and removal, each item's transaction updates paged by `/transactions/sync` at any count
 * with Plaid's cursor rules, and webhook verification keys. It refuses a request without the
 * client id and secret, as Plaid does.
 */
export interface PlaidMock {
  readonly url: string;
  readonly clientId: string;
  readonly secret: string;
  readonly requests: ApiRequest[];
  /** What Link hands the user's browser once they link a new item (`/sandbox/public_token/create`'s token). */
  publicTokenForNewItem(): string;
  /** What Link in update mode hands back, opened with `linkToken`: the user logged in again (the item's error clears). */
  publicTokenForUpdate(linkToken: string): string;
  /** `/sandbox/item/reset_login`: the item needs its user to log in again. */
  requireLogin(itemId: string): void;
  /** The item works again without the user (what LOGIN_REPAIRED announces). */
  repairLogin(itemId: string): void;
  /** Plaid records a change for the item: a sync paging through older updates now meets a mutation. */
  addUpdate(itemId: string, update: SyncLogUpdate): void;
  /** `count` new card purchases for the item (copies of a recorded one under new ids): an item with many pages. */
  addPurchases(itemId: string, count: number): string[];
  itemIdOf(accessToken: string): string;
  /** A webhook body from test/fixtures/plaid/webhooks for the item, signed as Plaid signs them at `at` (with the current key, or `key`). */
  signedWebhook(itemId: string, fixtureName: string, at: Date, key?: MockSigningKey): { rawBody: string; headers: Record<string, string> };
  /** Every key the mock has signed with, oldest first. */
  signingKeys(): MockSigningKey[];
  /** A JWT in Plaid's form over any header and claims, signed with the current key (or none). */
  signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key?: KeyObject): string;
  /** A new signing key; the previous one gets an `expired_at` (Plaid's rotation). */
  rotateKey(at: Date): void;
  /** The next request to `path` is answered with this recorded error instead. */
  failNext(path: string, errorFixture: string): void;
  close(): Promise<void>;
}

interface PlaidError {
  readonly status: number;
  readonly body: Record<string, unknown>;
}
const errorOf = (name: string): PlaidError => fixture<PlaidError>(`plaid/errors/${name}.json`);
const answerError = ({ status, body }: PlaidError): ApiAnswer => ({ status, body });

interface Item {
  readonly itemId: string;
  accessToken: string;
  readonly webhook: string;
  readonly log: SyncLogUpdate[];
  error: Record<string, unknown> | null;
  removed: boolean;
}

export interface MockSigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly jwk: { x: string; y: string };
  readonly createdAt: number;
  expiredAt: number | null;
}

const base62 = (length: number) => [...randomBytes(length)].map((byte) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[byte % 62]).join('');
const requestId = () => base62(15);

function newSigningKey(at: Date): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  return { kid: randomUUID(), privateKey, jwk, createdAt: Math.floor(at.getTime() / 1000), expiredAt: null };
}

export async function startPlaidMock(options: { now?: () => Date } = {}): Promise<PlaidMock> {
  const now = options.now ?? (() => new Date());
  const clientId = `client-${base62(12)}`;
  const secret = base62(30);
  const items = new Map<string, Item>();
  const byAccessToken = new Map<string, Item>();
  const linkTokens = new Map<string, { userId: string; item: Item | null; webhook: string }>();
  const publicTokens = new Map<string, { item: Item | null; webhook: string }>();
  const keys: SigningKey[] = [newSigningKey(now())];
  const failures = new Map<string, string>();
  const baseLog = fixture<{ updates: SyncLogUpdate[] }>('plaid/transactions-sync-log.json').updates;

  const liveItem = (accessToken: unknown): Item | null => {
    const item = typeof accessToken === 'string' ? byAccessToken.get(accessToken) : undefined;
    return item === undefined || item.removed ? null : item;
  };

  const routes: Record<string, (body: Record<string, unknown>) => ApiAnswer> = {
    '/link/token/create': (body) => {
      const user = body.user as { client_user_id?: unknown } | undefined;
      if (typeof user?.client_user_id !== 'string' || typeof body.client_name !== 'string' || !Array.isArray(body.country_codes) || typeof body.language !== 'string') {
        return answerError({ status: 400, body: { ...errorOf('invalid-field').body, error_message: 'client_name, language, country_codes and user.client_user_id are required' } });
      }
      let item: Item | null = null;
      if (body.access_token !== undefined) {
        item = liveItem(body.access_token);
        if (item === null) return answerError(errorOf('invalid-access-token'));
      } else if (!Array.isArray(body.products) || body.products.length === 0) {
        return answerError({ status: 400, body: { ...errorOf('invalid-field').body, error_message: 'products are required outside update mode' } });
      }
      const recorded = fixture('plaid/link-token-create.json');
      const linkToken = `link-sandbox-${randomUUID()}`;
      linkTokens.set(linkToken, { userId: user.client_user_id, item, webhook: typeof body.webhook === 'string' ? body.webhook : '' });
      const expiration = new Date(now().getTime() + 4 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return { status: 200, body: { ...recorded, link_token: linkToken, expiration, request_id: requestId() } };
    },
    '/item/public_token/exchange': (body) => {
      const grant = typeof body.public_token === 'string' ? publicTokens.get(body.public_token) : undefined;
      if (grant === undefined) return answerError(errorOf('invalid-public-token'));
      publicTokens.delete(body.public_token as string);
      let item = grant.item;
      if (item === null) {
        item = { itemId: base62(37), accessToken: `access-sandbox-${randomUUID()}`, webhook: grant.webhook, log: structuredClone(baseLog), error: null, removed: false };
        items.set(item.itemId, item);
        byAccessToken.set(item.accessToken, item);
      }
      return { status: 200, body: { ...fixture('plaid/item-public-token-exchange.json'), access_token: item.accessToken, item_id: item.itemId, request_id: requestId() } };
    },
    '/accounts/get': (body) => {
      const item = liveItem(body.access_token);
      if (item === null) return answerError(errorOf('invalid-access-token'));
      if (item.error !== null) return answerError(errorOf('item-login-required'));
      const recorded = fixture<{ item: Record<string, unknown> }>('plaid/accounts-get.json');
      return { status: 200, body: { ...recorded, item: { ...recorded.item, item_id: item.itemId, webhook: item.webhook }, request_id: requestId() } };
    },
    '/item/get': (body) => {
      const item = liveItem(body.access_token);
      if (item === null) return answerError(errorOf('invalid-access-token'));
      const recorded = fixture<{ item: Record<string, unknown> }>('plaid/item-get.json');
      return { status: 200, body: { ...recorded, item: { ...recorded.item, item_id: item.itemId, webhook: item.webhook, error: item.error }, request_id: requestId() } };
    },
    '/institutions/get_by_id': (body) => {
      const recorded = fixture<{ institution: { institution_id: string } }>('plaid/institutions-get-by-id.json');
      if (body.institution_id !== recorded.institution.institution_id || !Array.isArray(body.country_codes)) return answerError({ status: 400, body: { ...errorOf('invalid-field').body, error_code: 'INVALID_INSTITUTION', error_message: 'invalid institution_id provided' } });
      return { status: 200, body: { ...recorded, request_id: requestId() } };
    },
    '/transactions/sync': (body) => {
      const item = liveItem(body.access_token);
      if (item === null) return answerError(errorOf('invalid-access-token'));
      if (item.error !== null) return answerError(errorOf('item-login-required'));
      const count = body.count ?? 100;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 500) return answerError({ status: 400, body: { ...errorOf('invalid-field').body, error_message: 'count must be an integer from 1 to 500' } });
      const page = cutSyncPage(item.itemId, item.log, typeof body.cursor === 'string' ? body.cursor : '', count);
      if (page === 'invalid cursor') return answerError(errorOf('invalid-field'));
      if (page === 'mutated') return answerError(errorOf('transactions-sync-mutation-during-pagination'));
      return { status: 200, body: { accounts: fixture<{ accounts: unknown[] }>('plaid/accounts-get.json').accounts, ...page, request_id: requestId(), transactions_update_status: 'HISTORICAL_UPDATE_COMPLETE' } };
    },
    '/item/remove': (body) => {
      const item = liveItem(body.access_token);
      if (item === null) return answerError(errorOf('invalid-access-token'));
      item.removed = true;
      return { status: 200, body: { ...fixture('plaid/item-remove.json'), request_id: requestId() } };
    },
    '/webhook_verification_key/get': (body) => {
      const key = keys.find((candidate) => candidate.kid === body.key_id);
      if (key === undefined) return answerError(errorOf('invalid-webhook-verification-key-id'));
      const recorded = fixture<{ key: Record<string, unknown> }>('plaid/webhook-verification-key-get.json');
      return { status: 200, body: { ...recorded, key: { ...recorded.key, kid: key.kid, x: key.jwk.x, y: key.jwk.y, created_at: key.createdAt, expired_at: key.expiredAt }, request_id: requestId() } };
    },
  };

  const server = await startRecordedApiServer((request) => {
    if (request.headers['plaid-client-id'] !== clientId || request.headers['plaid-secret'] !== secret) return answerError(errorOf('invalid-api-keys'));
    if (request.method !== 'POST' || request.headers['plaid-version'] !== '2020-09-14') return { status: 400, body: { ...errorOf('invalid-field').body, error_type: 'INVALID_REQUEST', error_code: 'INVALID_HEADERS', error_message: 'a POST with Plaid-Version: 2020-09-14 is expected' } };
    const failure = failures.get(request.path);
    if (failure !== undefined) {
      failures.delete(request.path);
      return answerError(errorOf(failure));
    }
    const route = routes[request.path];
    if (route === undefined) return { status: 404, body: { ...errorOf('invalid-field').body, error_type: 'INVALID_REQUEST', error_code: 'UNKNOWN_FIELDS', error_message: `no such endpoint ${request.path}` } };
    return route((request.body ?? {}) as Record<string, unknown>);
  });

  const itemById = (itemId: string): Item => {
    const item = items.get(itemId);
    if (item === undefined) throw new Error(`The Plaid mock has no item ${itemId}`);
    return item;
  };
  const signJwt = (header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject = keys[keys.length - 1]!.privateKey): string => {
    const signingInput = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${signingInput}.${sign('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };

  return {
    url: server.url,
    clientId,
    secret,
    requests: server.requests,
    publicTokenForNewItem() {
      const publicToken = fixture<{ public_token: string }>('plaid/sandbox-public-token-create.json').public_token.replace(/[^-]+$/, randomUUID().slice(-12));
      publicTokens.set(publicToken, { item: null, webhook: '' });
      return publicToken;
    },
    publicTokenForUpdate(linkToken) {
      const link = linkTokens.get(linkToken);
      if (link?.item === null || link === undefined) throw new Error('Not a link token of update mode');
      link.item.error = null;
      const publicToken = `public-sandbox-${randomUUID()}`;
      publicTokens.set(publicToken, { item: link.item, webhook: link.webhook });
      return publicToken;
    },
    requireLogin: (itemId) => void (itemById(itemId).error = errorOf('item-login-required').body),
    repairLogin: (itemId) => void (itemById(itemId).error = null),
    addUpdate: (itemId, update) => void itemById(itemId).log.push(update),
    addPurchases(itemId, count) {
      const template = baseLog.find((update) => update.transaction.transaction_id === 'Lp2xV9sQ4mBn7KcW1dZ8gYr3TfJ6hUaEoRiM5')!.transaction;
      const ids = Array.from({ length: count }, () => base62(37));
      itemById(itemId).log.push(...ids.map((transaction_id, index): SyncLogUpdate => ({ kind: 'added', transaction: { ...template, transaction_id, amount: 1 + (index % 50) } })));
      return ids;
    },
    itemIdOf: (accessToken) => byAccessToken.get(accessToken)?.itemId ?? '',
    signedWebhook(itemId, fixtureName, at, key = keys[keys.length - 1]!) {
      const body = { ...fixture(`plaid/webhooks/${fixtureName}.json`), item_id: itemId };
      // Pretty-printed as Plaid sends it: the hash is of these bytes, not of a re-serialisation.
      const rawBody = JSON.stringify(body, null, 2);
      const jwt = signJwt({ alg: 'ES256', kid: key.kid, typ: 'JWT' }, { iat: Math.floor(at.getTime() / 1000), request_body_sha256: createHash('sha256').update(rawBody).digest('hex') }, key.privateKey);
      return { rawBody, headers: { 'content-type': 'application/json', 'plaid-verification': jwt } };
    },
    signJwt,
    signingKeys: () => keys.map(({ kid, privateKey }) => ({ kid, privateKey })),
    rotateKey(at) {
      keys[keys.length - 1]!.expiredAt = Math.floor(at.getTime() / 1000);
      keys.push(newSigningKey(at));
    },
    failNext: (path, errorFixture) => void failures.set(path, errorFixture),
    close: () => server.close(),
  };
}
