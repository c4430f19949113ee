import type { Express, NextFunction, Request, Response } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics for one process: Node's default metrics plus a request-duration
 * histogram labelled by route (never by raw URL, to keep cardinality bounded).
 */
export function createMetrics(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
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
    mount(app: Express) {
      app.get('/metrics', async (_req, res) => {
        res.type(registry.contentType).send(await registry.metrics());
      });
    },
  };
}
