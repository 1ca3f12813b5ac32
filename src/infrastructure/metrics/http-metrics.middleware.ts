import type { NextFunction, Request, Response } from 'express';
import { methodLabel, routeLabel, statusLabel } from './http-route-label.js';

export interface HttpRequestMeter {
  httpRequestFinished(labels: { method: string; route: string; status: string }, seconds: number): void;
}

/** Counts and times every response that finishes, labelled by the route template that answered it. */
export function httpMetrics(meter: HttpRequestMeter) {
  return (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      meter.httpRequestFinished({ method: methodLabel(request.method), route: routeLabel(request.route, request.baseUrl), status: statusLabel(response.statusCode) }, seconds);
    });
    next();
  };
}
