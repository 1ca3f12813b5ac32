/** The label value of a request that no route answered (404s, static files, body-parser refusals). */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** A template that is a wildcard alone: Nest's not-found handler, mounted as `*path` under the /v1 prefix. */
const CATCH_ALL = /^\/?(\*\w+|\{\/?\*\w+\})$/;

/**
 * The route template a request matched (`/v1/transactions/:transactionId`), never its path: a
 * path carries ids, and a label per id would grow the series without bound. `route` is what
 * Express leaves on `request.route` once a route handled the request; `baseUrl` is the mount
 * point of the router that held it ('' for routes registered on the application). A catch-all
 * answers every path, so it is no route either.
 */
export function routeLabel(route: unknown, baseUrl: string | undefined): string {
  const template = typeof route === 'object' && route !== null ? (route as { path?: unknown }).path : undefined;
  if (typeof template !== 'string' || template === '' || CATCH_ALL.test(template)) return UNMATCHED_ROUTE;
  const joined = `${baseUrl ?? ''}${template}`;
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

/** Node accepts some thirty methods; the ones an API uses are kept, any other is `other`. */
export function methodLabel(method: string): string {
  const upper = method.toUpperCase();
  return METHODS.has(upper) ? upper : 'other';
}

/** The status code as sent; one outside 100–599 (which Node refuses anyway) is `other`. */
export function statusLabel(statusCode: number): string {
  return Number.isInteger(statusCode) && statusCode >= 100 && statusCode <= 599 ? String(statusCode) : 'other';
}
