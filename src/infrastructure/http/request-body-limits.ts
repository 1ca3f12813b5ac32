/** No request body of this API nests deeper than 3; 32 leaves room and still bounds every walk. */
export const MAX_JSON_DEPTH = 32;

/** The largest request body read (the longest field, `notes`, is 100,000 characters). */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_BODY_TEXT = '1 MB';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The one operation that takes a file as its raw body (a bank statement, decision 0041): which
 * media types, and how large. Every other operation reads JSON only, within MAX_BODY_BYTES.
 */
export const STATEMENT_UPLOAD = {
  path: /^\/v1\/accounts\/[^/?#]+\/imports\/?(?:[?#]|$)/i,
  mediaTypes: ['text/csv', 'application/x-ofx', 'application/ofx', 'application/vnd.intu.qfx'],
  maxBytes: 10 * 1024 * 1024,
  maxText: '10 MB',
} as const;

function mediaTypeOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  const contentType = request.headers['content-type'];
  return (typeof contentType === 'string' ? contentType : '').split(';')[0].trim().toLowerCase();
}

/** Whether the request is a POST of a statement file to its import operation, in a media type it takes. */
export function carriesStatementBody(request: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> }): boolean {
  return request.method === 'POST' && STATEMENT_UPLOAD.path.test(request.url ?? '') && (STATEMENT_UPLOAD.mediaTypes as readonly string[]).includes(mediaTypeOf(request));
}

/**
 * Which requests the JSON parser reads: `application/json` bodies of the methods that take one.
 * A body sent with GET or DELETE is left unread (no operation reads it), so it cannot fail them.
 */
export function carriesJsonBody(request: { method?: string; headers: Record<string, string | string[] | undefined> }): boolean {
  return METHODS_WITH_BODY.has(request.method ?? '') && mediaTypeOf(request) === 'application/json';
}

/** A JSON body nested deeper than MAX_JSON_DEPTH: a 400 BAD_REQUEST before anything walks it. */
export class BodyTooDeepError extends Error {
  constructor() {
    super(`The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`);
    this.name = 'BodyTooDeepError';
  }
}

/**
 * True when arrays and objects nest more than `limit` levels. Iterative and stops at the first
 * node past the limit, so 100,000 nested arrays cost no more than 33 and never touch the call stack.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
