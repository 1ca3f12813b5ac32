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
