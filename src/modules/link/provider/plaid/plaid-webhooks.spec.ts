import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { fixture } from '../../../../../test/support/recorded-api-server.js';
import { PlaidWebhookKeys, type PlaidVerificationKey } from './plaid-webhook-keys.js';
import { parsePlaidWebhook, plaidWebhookIdOf, verifyPlaidWebhook } from './plaid-webhooks.js';

const now = new Date('2026-11-20T10:00:00.000Z');
const seconds = (n: number) => new Date(now.getTime() + n * 1000);

function keyPair(kid: string, expiredAt: number | null = null) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y } = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const jwk: PlaidVerificationKey = { kid, kty: 'EC', crv: 'P-256', alg: 'ES256', x, y, created_at: 1_700_000_000, expired_at: expiredAt };
  return { kid, privateKey, jwk };
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function jwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

const body = (name: string, itemId = 'item-1') => JSON.stringify({ ...fixture(`plaid/webhooks/${name}.json`), item_id: itemId }, null, 2);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A key store over an in-memory Plaid that counts what it is asked. */
function plaidKeys(...known: PlaidVerificationKey[]) {
  const asked: string[] = [];
  const published = new Map(known.map((key) => [key.kid, key]));
  const keys = new PlaidWebhookKeys(async (kid) => {
    asked.push(kid);
    return published.get(kid) ?? null;
  });
  return { keys, asked, published };
}

describe('Plaid webhook verification', () => {
  const current = keyPair('kid-current');
  const delivery = (rawBody: string, iat = now, key = current) => ({ rawBody, headers: { 'Plaid-Verification': jwt({ alg: 'ES256', kid: key.kid, typ: 'JWT' }, { iat: Math.floor(iat.getTime() / 1000), request_body_sha256: sha256(rawBody) }, key.privateKey) } });

  it('accepts a delivery signed with the key its kid names, over exactly its body, within five minutes either way', async () => {
    const { keys } = plaidKeys(current.jwk);
    const signed = delivery(body('login-repaired'));
    for (const at of [now, seconds(300), seconds(-300)]) expect(await verifyPlaidWebhook(signed.rawBody, signed.headers, at, keys)).toBe(true);
    expect(await verifyPlaidWebhook(signed.rawBody, { 'plaid-verification': signed.headers['Plaid-Verification'] }, now, keys)).toBe(true);
  });

  it('refuses, without asking Plaid, a JWT that is not ES256, one issued more than five minutes from now, and one over another body', async () => {
    const { keys, asked } = plaidKeys(current.jwk);
    const rawBody = body('login-repaired');
    const claims = { iat: Math.floor(now.getTime() / 1000), request_body_sha256: sha256(rawBody) };
    const unsigned = `${part({ alg: 'none', kid: current.kid })}.${part(claims)}.`;
    const hs256 = `${part({ alg: 'HS256', kid: current.kid })}.${part(claims)}.${Buffer.alloc(32).toString('base64url')}`;
    for (const header of [unsigned, hs256, 'not-a-jwt', `${part({ alg: 'ES256' })}.${part(claims)}.AAAA`]) expect(await verifyPlaidWebhook(rawBody, { 'plaid-verification': header }, now, keys)).toBe(false);
    expect(await verifyPlaidWebhook(rawBody, delivery(rawBody, seconds(-301)).headers, now, keys)).toBe(false);
    expect(await verifyPlaidWebhook(rawBody, delivery(rawBody, seconds(301)).headers, now, keys)).toBe(false);
    expect(await verifyPlaidWebhook(rawBody.replace('item-1', 'item-2'), delivery(rawBody).headers, now, keys)).toBe(false);
    expect(await verifyPlaidWebhook(rawBody, {}, now, keys)).toBe(false);
    expect(asked).toEqual([]);
  });

  it('refuses a signature by another key under a known kid, a DER-encoded one, an unknown kid, and any delivery while Plaid cannot be asked', async () => {
    const { keys } = plaidKeys(current.jwk);
    const rawBody = body('login-repaired');
    const impostor = keyPair(current.kid);
    expect(await verifyPlaidWebhook(rawBody, delivery(rawBody, now, impostor).headers, now, keys)).toBe(false);
    const claims = { iat: Math.floor(now.getTime() / 1000), request_body_sha256: sha256(rawBody) };
    const input = `${part({ alg: 'ES256', kid: current.kid })}.${part(claims)}`;
    const der = sign('sha256', Buffer.from(input), current.privateKey).toString('base64url');
    expect(await verifyPlaidWebhook(rawBody, { 'plaid-verification': `${input}.${der}` }, now, keys)).toBe(false);
    expect(await verifyPlaidWebhook(rawBody, delivery(rawBody, now, keyPair('kid-nobody-knows')).headers, now, keys)).toBe(false);
    const down = new PlaidWebhookKeys(() => Promise.reject(new Error('Plaid is down')));
    expect(await verifyPlaidWebhook(rawBody, delivery(rawBody).headers, now, down)).toBe(false);
  });
});

describe('the cache of Plaid webhook keys', () => {
  it('asks Plaid once per key id, however many deliveries and whether they come at once', async () => {
    const key = keyPair('kid-a');
    const { keys, asked } = plaidKeys(key.jwk);
    const found = await Promise.all([keys.keyFor('kid-a', now), keys.keyFor('kid-a', now), keys.keyFor('kid-a', seconds(3600))]);
    expect(found.every((entry) => entry !== null)).toBe(true);
    expect(asked).toEqual(['kid-a']);
    expect(await keys.keyFor('kid-a', seconds(25 * 3600))).not.toBeNull();
    expect(asked).toEqual(['kid-a', 'kid-a']);
  });

  it('remembers a key id Plaid does not know for five minutes, and asks about at most ten new key ids a minute', async () => {
    const { keys, asked } = plaidKeys();
    expect(await keys.keyFor('kid-unknown', now)).toBeNull();
    expect(await keys.keyFor('kid-unknown', seconds(299))).toBeNull();
    expect(asked).toEqual(['kid-unknown']);
    expect(await keys.keyFor('kid-unknown', seconds(301))).toBeNull();
    expect(asked).toHaveLength(2);
    let fetched = 0;
    const counting = new PlaidWebhookKeys(async () => {
      fetched += 1;
      return null;
    });
    for (let index = 0; index < 25; index += 1) await counting.keyFor(`kid-${index}`, now);
    expect(fetched).toBe(10);
    await counting.keyFor('kid-later', seconds(61));
    expect(fetched).toBe(11);
  });

  it('on a new real key (Plaid rotated), asks again about the keys it holds, and refuses from then on the one Plaid expired', async () => {
    const old = keyPair('kid-old');
    const { keys, asked, published } = plaidKeys(old.jwk);
    expect(await keys.keyFor('kid-old', now)).not.toBeNull();
    const rotated = keyPair('kid-new');
    published.set('kid-new', rotated.jwk);
    published.set('kid-old', { ...old.jwk, expired_at: Math.floor(now.getTime() / 1000) });
    expect(await keys.keyFor('kid-new', seconds(10))).not.toBeNull();
    expect(asked).toEqual(['kid-old', 'kid-new', 'kid-old']);
    expect(await keys.keyFor('kid-old', seconds(20))).toBeNull();
    expect(await keys.keyFor('kid-old', seconds(30 * 3600))).toBeNull();
    expect(asked).toHaveLength(3);
  });

  it('refuses a key that is not an ES256 P-256 key', async () => {
    const key = keyPair('kid-rsa');
    const { keys } = plaidKeys({ ...key.jwk, kty: 'RSA', alg: 'RS256' });
    expect(await keys.keyFor('kid-rsa', now)).toBeNull();
  });
});

describe("Plaid's webhooks in the port's terms", () => {
  const headers = { 'plaid-verification': 'header.payload.signature' };
  const parse = (name: string) => parsePlaidWebhook(body(name), headers);
  const webhookId = plaidWebhookIdOf(headers) as string;

  it('names a delivery by its signature: the same delivery again has the same id, a re-signed one another', () => {
    expect(webhookId).toMatch(/^plaid-jwt-[0-9a-f]{64}$/);
    expect(plaidWebhookIdOf({ 'Plaid-Verification': 'header.payload.signature' })).toBe(webhookId);
    expect(plaidWebhookIdOf({ 'plaid-verification': 'header.payload.other' })).not.toBe(webhookId);
    expect(plaidWebhookIdOf({})).toBeNull();
  });

  it('reads each code the service acts on, a login required being an ERROR whose code says so', () => {
    expect(parse('sync-updates-available')).toEqual({ webhookId, code: 'SYNC_UPDATES_AVAILABLE', itemId: 'item-1', initialUpdateComplete: true, historicalUpdateComplete: false });
    expect(parse('error-item-login-required')).toEqual({
      webhookId,
      code: 'ITEM_LOGIN_REQUIRED',
      itemId: 'item-1',
      error: { errorCode: 'ITEM_LOGIN_REQUIRED', errorMessage: expect.stringContaining('the login details of this item have changed') },
    });
    expect(parse('error-institution-not-responding')).toEqual({ webhookId, code: 'ERROR', itemId: 'item-1', error: { errorCode: 'INSTITUTION_NOT_RESPONDING', errorMessage: expect.any(String) } });
    expect(parse('user-permission-revoked')).toMatchObject({ code: 'ERROR', error: { errorCode: 'USER_PERMISSION_REVOKED' } });
    expect(parse('login-repaired')).toEqual({ webhookId, code: 'LOGIN_REPAIRED', itemId: 'item-1' });
    expect(parse('pending-disconnect')).toEqual({ webhookId, code: 'PENDING_DISCONNECT', itemId: 'item-1', disconnectAt: '2026-11-27T13:25:17.766Z', reason: 'INSTITUTION_MIGRATION' });
    expect(parse('pending-expiration')).toEqual({ webhookId, code: 'PENDING_EXPIRATION', itemId: 'item-1', consentExpiresAt: '2026-11-27T13:25:17.766Z' });
    expect(parse('new-accounts-available')).toEqual({ webhookId, code: 'NEW_ACCOUNTS_AVAILABLE', itemId: 'item-1' });
  });

  it('leaves unrecognised what the service does not act on, or a known code missing what it needs', () => {
    expect(parse('webhook-update-acknowledged')).toEqual({ code: 'UNRECOGNISED', rawCode: 'WEBHOOK_UPDATE_ACKNOWLEDGED', itemId: 'item-1', webhookId });
    expect(parse('default-update')).toEqual({ code: 'UNRECOGNISED', rawCode: 'DEFAULT_UPDATE', itemId: 'item-1', webhookId });
    const withoutTime = JSON.stringify({ ...fixture('plaid/webhooks/pending-disconnect.json'), disconnect_time: undefined });
    expect(parsePlaidWebhook(withoutTime, headers)).toMatchObject({ code: 'UNRECOGNISED', rawCode: 'PENDING_DISCONNECT' });
    const wrongType = JSON.stringify({ ...fixture('plaid/webhooks/login-repaired.json'), webhook_type: 'TRANSACTIONS' });
    expect(parsePlaidWebhook(wrongType, headers)).toMatchObject({ code: 'UNRECOGNISED', rawCode: 'LOGIN_REPAIRED' });
    expect(parsePlaidWebhook(body('login-repaired'), {})).toEqual({ code: 'UNRECOGNISED', rawCode: 'LOGIN_REPAIRED', itemId: 'item-1', webhookId: null });
    expect(parsePlaidWebhook('not json', headers)).toEqual({ code: 'UNRECOGNISED', rawCode: null, itemId: null, webhookId });
  });
});
