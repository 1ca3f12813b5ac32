import { IDEMPOTENCY_KEY_PATTERN, keepsAnswer, repeatOutcome, requestFingerprint } from './idempotency-key.js';

describe('Idempotency-Key', () => {
  it('takes 1 to 255 printable ASCII characters', () => {
    expect(IDEMPOTENCY_KEY_PATTERN.test('a')).toBe(true);
    expect(IDEMPOTENCY_KEY_PATTERN.test('order 42/retry:1~')).toBe(true);
    expect(IDEMPOTENCY_KEY_PATTERN.test('x'.repeat(255))).toBe(true);
    expect(IDEMPOTENCY_KEY_PATTERN.test('')).toBe(false);
    expect(IDEMPOTENCY_KEY_PATTERN.test('x'.repeat(256))).toBe(false);
    expect(IDEMPOTENCY_KEY_PATTERN.test('clé')).toBe(false);
    expect(IDEMPOTENCY_KEY_PATTERN.test('tab\there')).toBe(false);
  });

  it('fingerprints method, path with query and body', () => {
    const first = requestFingerprint('POST', '/v1/transactions', { amount: -5, name: 'Coffee' });
    expect(requestFingerprint('POST', '/v1/transactions', { amount: -5, name: 'Coffee' })).toBe(first);
    expect(requestFingerprint('POST', '/v1/transactions', { amount: -6, name: 'Coffee' })).not.toBe(first);
    expect(requestFingerprint('PATCH', '/v1/transactions', { amount: -5, name: 'Coffee' })).not.toBe(first);
    expect(requestFingerprint('POST', '/v1/transactions?x=1', { amount: -5, name: 'Coffee' })).not.toBe(first);
    expect(requestFingerprint('DELETE', '/v1/tags/1', undefined)).toBe(requestFingerprint('DELETE', '/v1/tags/1', undefined));
  });

  it('answers a repeat: another request is a reuse, a running first is in progress, else its answer again', () => {
    const answer = { status: 201, body: '{"id":"1"}', headers: { 'content-type': 'application/json' } };
    expect(repeatOutcome({ fingerprint: 'a', answer }, 'b')).toEqual({ kind: 'reused' });
    expect(repeatOutcome({ fingerprint: 'a', answer: null }, 'b')).toEqual({ kind: 'reused' });
    expect(repeatOutcome({ fingerprint: 'a', answer: null }, 'a')).toEqual({ kind: 'in-progress' });
    expect(repeatOutcome({ fingerprint: 'a', answer }, 'a')).toEqual({ kind: 'replay', answer });
  });

  it('keeps every answer but a server failure', () => {
    expect([200, 201, 204, 404, 409, 422].every(keepsAnswer)).toBe(true);
    expect([500, 503].some(keepsAnswer)).toBe(false);
  });
});
