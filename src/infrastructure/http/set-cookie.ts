/** What a Set-Cookie line says besides the name and value. */
export interface CookieAttributes {
  readonly httpOnly: boolean;
  readonly sameSite: 'Lax';
  readonly secure: boolean;
  readonly path: string;
  /** Milliseconds the cookie lives; omitted on a cookie that is being cleared. */
  readonly maxAgeMs?: number;
}

/** Anything that takes a header, as Fastify's reply does: Set-Cookie lines add up rather than replace each other. */
export interface HeaderSink {
  header(name: string, value: string): unknown;
}

/**
 * One Set-Cookie line, byte for byte as the service has always written it (Express's `res.cookie`
 * over the `cookie` package): Max-Age in whole seconds and Expires at now + max age, or, to clear
 * it, no Max-Age and Expires at the epoch's first millisecond; attributes in that package's order.
 */
export function setCookieLine(name: string, value: string, attributes: CookieAttributes, now: number): string {
  const parts = [`${name}=${encodeURIComponent(value)}`];
  if (attributes.maxAgeMs !== undefined) parts.push(`Max-Age=${Math.floor(attributes.maxAgeMs / 1000)}`);
  parts.push(`Path=${attributes.path}`);
  parts.push(`Expires=${new Date(attributes.maxAgeMs === undefined ? 1 : now + attributes.maxAgeMs).toUTCString()}`);
  if (attributes.httpOnly) parts.push('HttpOnly');
  if (attributes.secure) parts.push('Secure');
  parts.push(`SameSite=${attributes.sameSite}`);
  return parts.join('; ');
}

export function setCookie(reply: HeaderSink, name: string, value: string, attributes: CookieAttributes): void {
  reply.header('Set-Cookie', setCookieLine(name, value, attributes, Date.now()));
}

export function clearCookie(reply: HeaderSink, name: string, attributes: Omit<CookieAttributes, 'maxAgeMs'>): void {
  reply.header('Set-Cookie', setCookieLine(name, '', attributes, Date.now()));
}
