import { createServer, type Server } from 'node:http';
import type { ServerMetrics } from './metrics.js';

/**
 * The metrics on a listener of their own, without tokens: for an address only the operator's Prometheus reaches
 * (loopback by default). `GET /metrics` answers the text format; anything else is 404.
 */
export function metricsServer(
  metrics: ServerMetrics,
  onError: (error: unknown, where: string) => void,
): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('not found: GET /metrics\n');
      return;
    }
    metrics.scrape().then(
      ({ text, contentType }) => response.writeHead(200, { 'content-type': contentType }).end(text),
      (error: unknown) => {
        onError(error, 'GET /metrics (metrics listener)');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('internal error\n');
      },
    );
  });
}
