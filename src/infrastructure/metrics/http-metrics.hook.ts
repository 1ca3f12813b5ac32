import type { FastifyInstance } from 'fastify';
import { methodLabel, routeLabel, statusLabel, UNMATCHED_ROUTE } from './http-route-label.js';

export interface HttpRequestMeter {
  httpRequestFinished(labels: { method: string; route: string; status: string }, seconds: number): void;
}

/**
 * Counts and times every response that is sent, labelled by the route template that answered it.
 * A body refused at the edge (`bodyRefused`) was answered before any route, as it always was.
 */
export function installHttpMetrics(fastify: FastifyInstance, meter: HttpRequestMeter, bodyRefused: (request: object) => boolean): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = bodyRefused(request) ? UNMATCHED_ROUTE : routeLabel(request.is404 ? undefined : request.routeOptions.url);
    meter.httpRequestFinished({ method: methodLabel(request.method), route, status: statusLabel(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
}
