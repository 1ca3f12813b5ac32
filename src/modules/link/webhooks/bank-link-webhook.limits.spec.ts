import type { BankLinkWebhook } from '../bank-link.port.js';
import { unacceptableWebhook } from './bank-link-webhook.limits.js';

const loginRequired = (errorCode: string, errorMessage: string): BankLinkWebhook => ({ webhookId: 'w-1', code: 'ITEM_LOGIN_REQUIRED', itemId: 'item-1', error: { errorCode, errorMessage } });
const unrecognised = (rawCode: string | null) => ({ code: 'UNRECOGNISED' as const, rawCode, itemId: 'item-1', webhookId: 'w-1' });
const body = (value: unknown) => JSON.stringify(value);

describe('what a signed bank-link webhook may hold', () => {
  it('takes codes up to 64 characters, error codes up to 128 and error messages up to 1,000, counting a surrogate pair as one', () => {
    expect(unacceptableWebhook('{}', unrecognised('C'.repeat(64)))).toBeNull();
    expect(unacceptableWebhook('{}', unrecognised('C'.repeat(65)))).toBe('The webhook code is longer than 64 characters.');
    expect(unacceptableWebhook('{}', loginRequired('E'.repeat(128), 'm'.repeat(1000)))).toBeNull();
    expect(unacceptableWebhook('{}', loginRequired('E'.repeat(129), 'm'))).toBe('The error code is longer than 128 characters.');
    expect(unacceptableWebhook('{}', loginRequired('E', 'm'.repeat(1001)))).toBe('The error message is longer than 1000 characters.');
    expect(unacceptableWebhook('{}', loginRequired('E', '😀'.repeat(1000)))).toBeNull();
    expect(unacceptableWebhook('{}', unrecognised(null))).toBeNull();
  });

  it('refuses NUL and lone surrogates anywhere in the body, keys and nested arrays included; a paired surrogate is fine', () => {
    const refused = 'A string in the webhook body must not contain a NUL character (U+0000) or a lone UTF-16 surrogate.';
    for (const value of [{ a: 'x\u0000' }, { a: '\ud800' }, { a: 'x\udc00y' }, { ['k\u0000']: 1 }, { a: [[{ b: ['\udbff'] }]] }, ['\u0000']]) {
      expect([value, unacceptableWebhook(body(value), unrecognised('X'))]).toEqual([value, refused]);
    }
    expect(unacceptableWebhook(body({ a: '😀 \\u0000 as text', b: [1, true, null, { c: 'fine' }] }), unrecognised('X'))).toBeNull();
    expect(unacceptableWebhook('not json', unrecognised(null))).toBeNull();
  });
});
