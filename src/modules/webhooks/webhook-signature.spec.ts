import { createHmac } from 'node:crypto';
import { generateWebhookSecret, webhookSignature } from './webhook-signature.js';

describe('webhook signatures', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256 under the secret, written t=<seconds>,v1=<hex>', () => {
    const secret = 'whsec_0123456789abcdefghijABCDEFGHIJKL';
    const body = '{"id":"e1","type":"webhook.test"}';
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(webhookSignature(secret, 1_700_000_000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('changes with the timestamp and with any byte of the body', () => {
    const secret = generateWebhookSecret();
    const signed = webhookSignature(secret, 1, '{}');
    expect(webhookSignature(secret, 2, '{}')).not.toBe(signed);
    expect(webhookSignature(secret, 1, '{ }')).not.toBe(signed);
  });

  it('makes secrets of whsec_ and 32 base62 characters, never the same twice', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
  });
});
