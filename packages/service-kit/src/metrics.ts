import { createServer, type Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { listen } from './listen';

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Prometheus metrics for one process: Node's default metrics plus a request-duration
 * histogram labelled by route (never by raw URL, to keep cardinality bounded). They are
 * served by `serveMetrics` on a port of their own, never on the public or service port.
 */
export function createMetrics(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop lag histogram samples every 50 ms, not prom-client's 10 ms: a timer of
  // its own wakes the process at that rate for ever (0.8 % of a core at rest per process on
  // these 2-core machines at 10 ms, 0.35 % at 50 ms), and a block long enough to matter still
  // shows in its percentiles.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 50 });
  const duration = new Histogram({
    name: 'kg_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    registry,
    middleware(req: Request, res: Response, next: NextFunction) {
      const end = duration.startTimer();
      res.on('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path ?? req.baseUrl ?? 'unmatched';
        end({ method: req.method, route: String(route || 'unmatched'), status: String(res.statusCode) });
      });
      next();
    },
  };
}

export interface MetricsServer {
  server: Server;
  /** The port it listens on (the configured one, or the one picked for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * The metrics listener (METRICS_PORT): `GET /metrics` in the Prometheus text format,
 * 404 for anything else. Kept off the public port so the Ingress never exposes it.
 */
export async function serveMetrics(registry: Registry, port: number, host = '0.0.0.0'): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? '' : text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await listen(server, { port, host, setting: 'METRICS_PORT', hint: ', or to 0 to pick one' });
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
