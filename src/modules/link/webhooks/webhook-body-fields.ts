import type { ItemError, WebhookHeaders } from '../bank-link.port.js';

/**
 * Readers of a provider webhook's JSON fields, shared by the sandbox's and Plaid's parsers: what
 * is not the shape asked for is null, never half-understood.
 */
export type WireBody = Record<string, unknown>;

/** The body as a JSON object, or null (not JSON, or an array or a scalar). */
export function wireObjectOf(rawBody: string): WireBody | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return null;
  }
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as WireBody) : null;
}

export const wireText = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** A provider's id is opaque but printable. */
const OPAQUE_ID = /^[\x21-\x7e]{1,200}$/;
export const wireOpaqueId = (value: unknown): string | null => (typeof value === 'string' && OPAQUE_ID.test(value) ? value : null);

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO-8601 instant, normalised to UTC milliseconds (what events and read models hold); anything else is null. */
export function wireInstant(value: unknown): string | null {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return null;
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  // Date.parse rolls 30 February over into March: a day that does not exist is not a date.
  const calendarDay = new Date(Date.UTC(year, month - 1, day));
  if (calendarDay.getUTCMonth() !== month - 1 || calendarDay.getUTCDate() !== day) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** `error: {error_code, error_message}`, or null without a code. */
export function wireError(body: WireBody): ItemError | null {
  const error = body.error;
  if (typeof error !== 'object' || error === null) return null;
  const errorCode = wireText((error as WireBody).error_code);
  return errorCode === null ? null : { errorCode, errorMessage: wireText((error as WireBody).error_message) ?? '' };
}

/** A header's first value, its name matched without regard to case. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}
