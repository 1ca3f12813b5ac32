import type { IncomingHttpHeaders } from 'node:http';

/**
 * CSRF defence for cookie-authenticated writes: the browser names the page that sent the request
 * in Origin (or, failing that, Referer); it must be the service itself or one of its web apps.
 * A request naming neither is refused: a browser always sends one of them on a cross-site POST.
 */
export class SameOriginPolicy {
  private readonly trusted: ReadonlySet<string>;

  constructor(publicUrl: string, allowedCallbackOrigins: readonly string[]) {
    this.trusted = new Set([new URL(publicUrl).origin, ...allowedCallbackOrigins.map((origin) => new URL(origin).origin)]);
  }

  allows(headers: { origin?: string | undefined; referer?: string | undefined }): boolean {
    const claimed = headers.origin ?? headers.referer;
    if (!claimed || claimed === 'null') return false;
    try {
      return this.trusted.has(new URL(claimed).origin);
    } catch {
      return false;
    }
  }
}

/** What a request says of the page that sent it (Referer also under its spelling Referrer, as Express read it). */
export function senderHeaders(headers: IncomingHttpHeaders): { origin: string | undefined; referer: string | undefined } {
  const referrer = headers.referrer;
  return { origin: headers.origin, referer: (typeof referrer === 'string' && referrer !== '' ? referrer : undefined) ?? headers.referer };
}
