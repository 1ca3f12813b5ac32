import type { FastifyInstance } from 'fastify';

/** Content types of the API reference's pages and files, as the service has always sent them. */
const AS_SENT: Record<string, string> = {
  'text/html': 'text/html; charset=utf-8',
  'application/javascript': 'application/javascript; charset=utf-8',
  'application/javascript; charset=utf-8': 'text/javascript; charset=utf-8',
};

/**
 * The reference under `prefix` (Swagger UI's page, its init script and its static files) is
 * served by Swagger's routes and `@fastify/static`, which name HTML and JavaScript without a
 * charset or as application/javascript. Their replies get the types Express gave them; only those
 * routes carry the hook, so no other request pays for it.
 */
export function keepReferencePageTypes(fastify: FastifyInstance, prefix: string): void {
  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith(prefix)) return;
    const hooks = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [
      ...hooks,
      (_request, reply, payload, done) => {
        const type = reply.getHeader('content-type');
        const sent = typeof type === 'string' ? AS_SENT[type] : undefined;
        if (sent) reply.header('content-type', sent);
        done(null, payload);
      },
    ];
  });
}
