import { parseWebhookBody, SANDBOX_SIGNATURE_HEADER, signWebhook, verifyWebhookSignature, WEBHOOK_SIGNATURE_TOLERANCE_SECONDS } from './sandbox-webhooks.js';
import { sandboxWebhook } from './sandbox-webhook-rules.js';

const secret = Buffer.from('a-secret');
const signedAt = new Date('2026-11-20T15:30:00.000Z');
const secondsAfter = (seconds: number) => new Date(signedAt.getTime() + seconds * 1000);

describe('sandbox webhook signature', () => {
  const signed = signWebhook(sandboxWebhook('item-1', 'LOGIN_REPAIRED', signedAt, 'w-1'), secret, signedAt);

  it('accepts a signature made up to five minutes before or after the receiver’s clock, and no further', () => {
    expect(WEBHOOK_SIGNATURE_TOLERANCE_SECONDS).toBe(300);
    for (const seconds of [0, 1, 299, 300, -1, -300]) expect([seconds, verifyWebhookSignature(signed.rawBody, signed.headers, secret, secondsAfter(seconds))]).toEqual([seconds, true]);
    for (const seconds of [301, 3600, -301, -86_400]) expect([seconds, verifyWebhookSignature(signed.rawBody, signed.headers, secret, secondsAfter(seconds))]).toEqual([seconds, false]);
  });

  it('refuses a stale signature even when the rest is right, and a fresh one over another body or secret', () => {
    const restamped = signWebhook(sandboxWebhook('item-1', 'LOGIN_REPAIRED', signedAt, 'w-1'), secret, secondsAfter(600));
    expect(verifyWebhookSignature(restamped.rawBody, restamped.headers, secret, secondsAfter(600))).toBe(true);
    // The old timestamp with the new one's MAC (or the reverse) does not verify: the time is signed.
    const [, newMac] = /v1=(\w+)/.exec(restamped.headers[SANDBOX_SIGNATURE_HEADER]!)!;
    const spliced = { [SANDBOX_SIGNATURE_HEADER]: `t=${Math.floor(signedAt.getTime() / 1000)},v1=${newMac}` };
    expect(verifyWebhookSignature(restamped.rawBody, spliced, secret, signedAt)).toBe(false);
    expect(verifyWebhookSignature(signed.rawBody.replace('item-1', 'item-2'), signed.headers, secret, signedAt)).toBe(false);
    expect(verifyWebhookSignature(signed.rawBody, signed.headers, Buffer.from('another-secret'), signedAt)).toBe(false);
    expect(verifyWebhookSignature(signed.rawBody, { [SANDBOX_SIGNATURE_HEADER]: 'v1=00' }, secret, signedAt)).toBe(false);
  });
});

describe('sandbox webhook body', () => {
  it('carries the webhook id inside the signed body and parses back to the same webhook, for every code', () => {
    const codes = ['SYNC_UPDATES_AVAILABLE', 'ITEM_LOGIN_REQUIRED', 'ERROR', 'LOGIN_REPAIRED', 'PENDING_DISCONNECT', 'PENDING_EXPIRATION', 'NEW_ACCOUNTS_AVAILABLE'] as const;
    for (const code of codes) {
      const webhook = sandboxWebhook('item-1', code, signedAt);
      const { rawBody } = signWebhook(webhook, secret, signedAt);
      expect(JSON.parse(rawBody)).toMatchObject({ webhook_id: webhook.webhookId, webhook_code: code, item_id: 'item-1' });
      expect(parseWebhookBody(rawBody)).toEqual(webhook);
    }
    expect(sandboxWebhook('item-1', 'LOGIN_REPAIRED', signedAt).webhookId).not.toBe(sandboxWebhook('item-1', 'LOGIN_REPAIRED', signedAt).webhookId);
  });

  it('reads PENDING_EXPIRATION’s consent expiration time as the date to show, normalised to UTC', () => {
    const body = { webhook_id: 'w-2', webhook_type: 'ITEM', webhook_code: 'PENDING_EXPIRATION', item_id: 'item-1', consent_expiration_time: '2026-12-01T13:00:00+01:00' };
    expect(parseWebhookBody(JSON.stringify(body))).toEqual({ webhookId: 'w-2', code: 'PENDING_EXPIRATION', itemId: 'item-1', consentExpiresAt: '2026-12-01T12:00:00.000Z' });
  });

  it('leaves unrecognised what it cannot act on: no id, no item, an unknown code, a date that is not one, or not a JSON object', () => {
    const base = { webhook_id: 'w-3', webhook_code: 'LOGIN_REPAIRED', item_id: 'item-1' };
    const parse = (body: unknown) => parseWebhookBody(JSON.stringify(body));
    expect(parse(base)).toEqual({ webhookId: 'w-3', code: 'LOGIN_REPAIRED', itemId: 'item-1' });
    expect(parse({ ...base, webhook_id: undefined })).toEqual({ code: 'UNRECOGNISED', rawCode: 'LOGIN_REPAIRED', itemId: 'item-1', webhookId: null });
    expect(parse({ ...base, webhook_id: 'has space' })).toMatchObject({ code: 'UNRECOGNISED', webhookId: null });
    expect(parse({ ...base, item_id: 42 })).toEqual({ code: 'UNRECOGNISED', rawCode: 'LOGIN_REPAIRED', itemId: null, webhookId: 'w-3' });
    expect(parse({ ...base, webhook_code: 'HOLDINGS_UPDATE' })).toEqual({ code: 'UNRECOGNISED', rawCode: 'HOLDINGS_UPDATE', itemId: 'item-1', webhookId: 'w-3' });
    expect(parse({ ...base, webhook_code: 'PENDING_DISCONNECT', disconnect_at: 'next week' })).toMatchObject({ code: 'UNRECOGNISED', rawCode: 'PENDING_DISCONNECT' });
    expect(parse({ ...base, webhook_code: 'PENDING_EXPIRATION', consent_expiration_time: '2026-02-30T00:00:00Z' })).toMatchObject({ code: 'UNRECOGNISED' });
    expect(parse({ ...base, webhook_code: 'ERROR' })).toMatchObject({ code: 'UNRECOGNISED', rawCode: 'ERROR' });
    expect(parseWebhookBody('not json')).toEqual({ code: 'UNRECOGNISED', rawCode: null, itemId: null, webhookId: null });
    expect(parseWebhookBody('[1]')).toEqual({ code: 'UNRECOGNISED', rawCode: null, itemId: null, webhookId: null });
  });
});
