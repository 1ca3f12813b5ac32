import type { FastifyInstance } from 'fastify';

/**
 * Every route the application's Fastify instance serves, as `METHOD /path/:param`, read from its
 * own printout of the router (`printRoutes`, one node a line, children indented under their parent,
 * each node a piece of the path to append). HEAD is left out: Fastify adds it beside every GET.
 */
export function servedRoutes(fastify: FastifyInstance): string[] {
  const pieces: string[] = [];
  const routes: string[] = [];
  for (const line of fastify.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^([│ ]*)[├└]── (.+?)(?: \(([^)]+)\))?$/.exec(line);
    if (!node) continue;
    const depth = node[1].length / 4;
    pieces.length = depth;
    pieces.push(node[2]);
    for (const method of node[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push(`${method} ${pieces.join('')}`);
  }
  return routes;
}
