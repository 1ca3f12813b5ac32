import { pino } from 'pino';

export const REDACTED = '[redacted]';

/**
 * Field names that hold a secret, compared without case, `-` or `_` (so `Set-Cookie`,
 * `set_cookie` and `setCookie` are one): credentials, session ids, every part of an OAuth
 * sign-in. Redacted at any depth.
 */
const SECRET_FIELDS = new Set(
  [
    'authorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'key',
    'apiKey',
    'x-api-key',
    'token',
    'accessToken',
    'refreshToken',
    'idToken',
    'sessionToken',
    'password',
    'secret',
    'clientSecret',
    'session',
    'sessionId',
    'authorizationCode',
    'state',
    'codeVerifier',
    'verifier',
    'browserBinding',
  ].map(normalise),
);

/**
 * `code` is a secret in an OAuth query (`?code=`), but an error's `code` (ECONNREFUSED, a
 * PostgreSQL SQLSTATE) is what an operator needs: it is redacted at the top of a line and
 * under any `query`, and kept elsewhere.
 */
const CODE_PARENTS = new Set(['', 'query']);

/** Deeper than this a value is replaced: a secret must not hide below the walk. */
export const REDACTION_MAX_DEPTH = 10;
const TRUNCATED = '[too deep]';
const CIRCULAR = '[circular]';

function normalise(field: string): string {
  return field.toLowerCase().replace(/[-_]/g, '');
}

function isSecretField(field: string, parent: string): boolean {
  const name = normalise(field);
  return SECRET_FIELDS.has(name) || (name === 'code' && CODE_PARENTS.has(normalise(parent)));
}

/**
 * A copy of a log line's fields with every secret field's value replaced, at any depth (pino's
 * own redact paths do not recurse). Errors become what pino's err serializer makes of them
 * (type, message, stack, own fields, cause), walked the same way.
 */
export function redactSecrets(fields: Record<string, unknown>): Record<string, unknown> {
  return walk(fields, '', 0, new WeakSet()) as Record<string, unknown>;
}

function walk(value: unknown, parent: string, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > REDACTION_MAX_DEPTH) return TRUNCATED;
  if (seen.has(value)) return CIRCULAR;
  if (value instanceof Date || Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return value;
  seen.add(value);
  try {
    if (value instanceof Error) return walk(pino.stdSerializers.err(value), parent, depth, seen);
    if (Array.isArray(value)) return value.map((item) => walk(item, parent, depth + 1, seen));
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return walk(toJSON.call(value), parent, depth + 1, seen);
    const copy: Record<string, unknown> = {};
    for (const [field, inner] of Object.entries(value)) {
      copy[field] = isSecretField(field, parent) && inner !== undefined && inner !== null ? REDACTED : walk(inner, field, depth + 1, seen);
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}
