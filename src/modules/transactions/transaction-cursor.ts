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

/**
 * Every part of a cursor is checked before it reaches SQL: a forged one with a hostile date,
 * timestamp or id is a 422 like any mangled one, never a database error.
 */
export function decodeCursor(userId: string, text: string): TransactionCursor {
  if (!BASE64URL.test(text)) throw mangled();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw mangled();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw mangled();
  const { v, u, d: date, c: createdAt, i: id } = parsed as Record<string, unknown>;
  if (v !== 1 || typeof u !== 'string') throw mangled();
  if (u !== ownerTag(userId)) throw invalid(['cursor'], 'cursor was issued to another user', 'invalid_string');
  if (!isCalendarDate(date) || !isIssuedTimestamp(createdAt) || !isUuid(id)) throw mangled();
  return { date, createdAt, id };
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A timestamp as encodeCursor writes it (Date#toISOString), naming a real instant in the accepted days. */
function isIssuedTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = ISO_TIMESTAMP.exec(value);
  if (match === null || !isCalendarDate(match[1])) return false;
  const instant = new Date(value);
  return !Number.isNaN(instant.getTime()) && instant.toISOString() === value;
}

function ownerTag(userId: string): string {
  return createHash('sha256').update(`ledgerline-cursor:${userId}`).digest('base64url').slice(0, 16);
}

const mangled = () => invalid(['cursor'], 'cursor is not one this service issued; pass nextCursor from the previous page', 'invalid_string');
