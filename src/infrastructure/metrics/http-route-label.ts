/** The label value of a request that no route answered (404s, static files, body-parser refusals). */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** A template that is a wildcard alone (`*`, `/*path`, `{/*rest}`): a not-found handler's, not a route's. */
const CATCH_ALL = /^\/?(\*\w*|\{\/?\*\w+\})$/;
/** A template ending in an unnamed wildcard (`/v1/docs/*`): a static-file plugin's, serving files, not operations. */
const STATIC_FILES = /\/\*$/;

/**
 * The route template a request matched (`/v1/transactions/:transactionId`), never its path: a
 * path carries ids, and a label per id would grow the series without bound. `template` is the URL
 * the route was registered with (Fastify's `request.routeOptions.url`); undefined when no route
 * answered. A catch-all answers every path, and static files are no operation: neither is a route.
 */
export function routeLabel(template: unknown): string {
  if (typeof template !== 'string' || template === '' || CATCH_ALL.test(template) || STATIC_FILES.test(template)) return UNMATCHED_ROUTE;
  return template.length > 1 && template.endsWith('/') ? template.slice(0, -1) : template;
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
