import { createHash } from 'node:crypto';
import { invalid } from '../../core/errors.js';
import { isUuid } from '../../core/ids.js';
import { isCalendarDate } from '../../infrastructure/http/validators.js';

/** Where a page ended, in the list's order (date, createdAt, id — all descending). */
export interface TransactionCursor {
  readonly date: string;
  readonly createdAt: string;
  readonly id: string;
}

/**
 * Opaque to clients: base64url JSON of the last row's sort key, bound to the user it was
 * issued to. See docs/decisions/0003-keyset-cursor.md.
 */
export function encodeCursor(userId: string, cursor: TransactionCursor): string {
  return Buffer.from(JSON.stringify({ v: 1, u: ownerTag(userId), d: cursor.date, c: cursor.createdAt, i: cursor.id })).toString('base64url');
}

export function decodeCursor(userId: string, text: string): TransactionCursor {
  let parsed: { v?: unknown; u?: unknown; d?: unknown; c?: unknown; i?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw mangled();
  }
  if (typeof parsed !== 'object' || parsed === null || parsed.v !== 1) throw mangled();
  if (parsed.u !== ownerTag(userId)) throw invalid(['cursor'], 'cursor was issued to another user', 'invalid_string');
  const { d: date, c: createdAt, i: id } = parsed;
  if (!isCalendarDate(date) || typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)) || !isUuid(id)) throw mangled();
  return { date, createdAt, id };
}

function ownerTag(userId: string): string {
  return createHash('sha256').update(`ledgerline-cursor:${userId}`).digest('base64url').slice(0, 16);
}

const mangled = () => invalid(['cursor'], 'cursor is not one this service issued; pass nextCursor from the previous page', 'invalid_string');
