import { methodLabel, routeLabel, statusLabel, UNMATCHED_ROUTE } from './http-route-label.js';

describe('routeLabel', () => {
  it('is the template of the route that answered, never the path with its ids', () => {
    expect(routeLabel('/v1/transactions/:transactionId')).toBe('/v1/transactions/:transactionId');
    expect(routeLabel('/v1/transactions/:transactionId/activity')).toBe('/v1/transactions/:transactionId/activity');
    expect(routeLabel('/api/auth/{*path}')).toBe('/api/auth/{*path}');
  });

  it('drops a trailing slash so that /v1/tags and /v1/tags/ are one series', () => {
    expect(routeLabel('/v1/tags/')).toBe('/v1/tags');
    expect(routeLabel('/')).toBe('/');
  });

  it('is one value for every request no route answered: a 404, a static file, a refused body', () => {
    expect(routeLabel(undefined)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('/v1/docs/*')).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(null)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(/^\/regex/)).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('')).toBe(UNMATCHED_ROUTE);
    expect(UNMATCHED_ROUTE).toBe('unmatched');
  });

  it('takes a catch-all (a not-found handler) as no route, but keeps a wildcard under a path', () => {
    expect(routeLabel('*')).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('/*')).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('*path')).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('/*path')).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('/{*path}')).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('{/*rest}')).toBe(UNMATCHED_ROUTE);
    expect(routeLabel('/api/auth/{*path}')).toBe('/api/auth/{*path}');
    expect(routeLabel('/files/*name')).toBe('/files/*name');
  });
});

describe('methodLabel', () => {
  it('keeps the methods an API uses, upper-cased, and folds any other into one value', () => {
    expect(['get', 'HEAD', 'Post', 'PUT', 'patch', 'DELETE', 'OPTIONS'].map(methodLabel)).toEqual(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
    expect(methodLabel('PROPFIND')).toBe('other');
    expect(methodLabel('M-SEARCH')).toBe('other');
  });
});

describe('statusLabel', () => {
  it('is the code as sent, and other for anything outside 100–599', () => {
    expect([200, 201, 204, 404, 422, 503].map(statusLabel)).toEqual(['200', '201', '204', '404', '422', '503']);
    expect(statusLabel(0)).toBe('other');
    expect(statusLabel(600)).toBe('other');
    expect(statusLabel(200.5)).toBe('other');
  });
});
