import { ValidationFailedError } from '../../core/errors.js';
import { decodeCursor, encodeCursor } from './transaction-cursor.js';

const alice = '0b5d2c1e-1111-4a2b-8c3d-000000000001';
const bob = '0b5d2c1e-1111-4a2b-8c3d-000000000002';
const position = { date: '2026-11-22', createdAt: '2026-11-22T10:00:00.123Z', id: '7d1f0a4e-2222-4b3c-9d4e-000000000009' };

describe('transaction cursor', () => {
  it('round-trips the position of the last row for its owner', () => {
    expect(decodeCursor(alice, encodeCursor(alice, position))).toEqual(position);
  });

  it('is refused for another user and when mangled', () => {
    expect(() => decodeCursor(bob, encodeCursor(alice, position))).toThrow(ValidationFailedError);
    expect(() => decodeCursor(alice, 'not-a-cursor')).toThrow(ValidationFailedError);
    expect(() => decodeCursor(alice, encodeCursor(alice, position).slice(0, -3))).toThrow(ValidationFailedError);
    const forged = Buffer.from(JSON.stringify({ v: 1, u: 'x', d: '2026-13-45', c: 'x', i: 'y' })).toString('base64url');
    expect(() => decodeCursor(alice, forged)).toThrow(ValidationFailedError);
  });
});

describe('transaction cursor contents', () => {
  const forge = (contents: unknown) => Buffer.from(JSON.stringify(contents)).toString('base64url');
  const valid = { v: 1, u: '', d: position.date, c: position.createdAt, i: position.id };
  const ownTag = () => JSON.parse(Buffer.from(encodeCursor(alice, position), 'base64url').toString('utf8')).u as string;

  it('accepts a well-formed cursor of its owner', () => {
    expect(decodeCursor(alice, forge({ ...valid, u: ownTag() }))).toEqual(position);
  });

  it.each([
    ['a date before 1900', { d: '0000-01-01' }],
    ['a date after 2199', { d: '2200-01-01' }],
    ['a day that does not exist', { d: '2025-02-30' }],
    ['a timestamp beyond what PostgreSQL holds', { c: '+275760-09-13T00:00:00.000Z' }],
    ['a timestamp in year 0', { c: '0000-01-01T00:00:00.000Z' }],
    ['a timestamp without milliseconds', { c: '2026-11-22T10:00:00Z' }],
    ['a timestamp on 30 February', { c: '2025-02-30T10:00:00.000Z' }],
    ['a timestamp at hour 25', { c: '2026-11-22T25:00:00.000Z' }],
    ['a huge string', { c: 'x'.repeat(600) }],
    ['a nested object', { d: { $gt: '' } }],
    ['an id that is no UUID', { i: "1' OR 1=1 --" }],
    ['an id with a NUL', { i: `${position.id}\u0000` }],
    ['another version', { v: 2 }],
    ['a version as text', { v: '1' }],
  ])('refuses %s', (_case, change) => {
    expect(() => decodeCursor(alice, forge({ ...valid, u: ownTag(), ...change }))).toThrow(ValidationFailedError);
  });

  it('refuses what is not base64url JSON of an object', () => {
    for (const text of ['', '====', 'a+b/c', forge([1, 2]), forge(null), forge('text'), forge(42), Buffer.from('{"v":1').toString('base64url'), '%00']) {
      expect(() => decodeCursor(alice, text)).toThrow(ValidationFailedError);
    }
  });
});
