import { createServer, type Server } from 'node:http';
import express from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { InternalTokenVerifier } from '@kg/tokens';
import type { Logger } from '@kg/logger';
import { REQUEST_ID_HEADER, cleanRequestId, logUnexpectedError, type CallContext } from '@kg/trpc';
import type { ServiceModule } from './module';
import { drainOnShutdown } from './drain';
import { listen } from './listen';
import { startMemoryReducer } from './memory-reducer';
import { createMetrics, serveMetrics } from './metrics';

export interface ServeOptions {
  module: ServiceModule;
  port: number;
  host?: string;
  /** Port of the separate /metrics listener (METRICS_PORT; 0 picks a free one). */
  metricsPort: number;
  verifier: InternalTokenVerifier;
  logger: Logger;
  /**
   * On close, how long the service keeps answering (readiness 503, every answer closing its
   * connection) before it stops listening: callers reach it through a Service whose endpoints
   * drop it only after the signal (SHUTDOWN_DRAIN_MS; 0 stops at once).
   */
  drainMs?: number;
  /** MEMORY_REDUCE_INTERVAL_MS: the idle memory reducer's period (memory-reducer.ts; 0: off, the default). */
  memoryReduceIntervalMs?: number;
}

/**
 * Serves one service standalone: tRPC at /trpc behind internal-token authentication,
 * plus /healthz and /readyz; /metrics (Prometheus) on its own port (`metricsPort`).
 * Requests without a valid internal token answer 401.
 */
export async function serveService(
  opts: ServeOptions,
): Promise<{ server: Server; metricsPort: number; close(): Promise<void> }> {
  const { module, verifier, logger } = opts;
  const app = express();
  app.disable('x-powered-by');
  const server = createServer(app);
  // Once closing, every answer ends its connection (a caller's kept-alive connection would
  // otherwise carry new requests until the shutdown grace runs out and cuts one mid-write);
  // idle connections are closed when it stops listening, and requests in flight finish.
  const drain = drainOnShutdown(server, { drainMs: opts.drainMs ?? 0 });
  const metrics = createMetrics(module.name);
  module.registerMetrics?.(metrics.registry);
  app.use(metrics.middleware);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: module.name });
  });
  app.get('/readyz', async (_req, res) => {
    // Not ready while draining: the Service's endpoints drop this pod before it stops listening.
    const ready = !drain.draining() && (await module.ready().catch(() => false));
    const degraded = ready && module.degraded ? await module.degraded().catch((): string[] => []) : [];
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready',
      service: module.name,
      ...(degraded.length > 0 ? { degraded } : {}),
    });
  });
  app.use(
    '/trpc',
    async (req, res, next) => {
      const token = req.header('x-internal-token');
      if (!token) {
        res
          .status(401)
          .type('application/problem+json')
          .json({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'internal token required' });
        return;
      }
      try {
        res.locals['claims'] = await verifier.verify(token, module.name);
        next();
      } catch (err) {
        // The reason (bad signature, expired, unknown service…), never the token itself.
        logger.warn(
          { reason: err instanceof Error ? err.message : 'invalid', path: req.path },
          'internal token refused',
        );
        res
          .status(401)
          .type('application/problem+json')
          .json({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'invalid internal token' });
      }
    },
    createExpressMiddleware({
      router: module.router,
      // Callers send queries as POST (packages/trpc client: long inputs never go in a URL).
      allowMethodOverride: true,
      createContext: ({ req, res }): CallContext => ({
        ...(res.locals['claims'] as CallContext),
        requestId: cleanRequestId(req.header(REQUEST_ID_HEADER)),
      }),
      onError: (opts) => logUnexpectedError(logger, opts),
    }),
  );
  const host = opts.host ?? '0.0.0.0';
  await listen(server, { port: opts.port, host });
  const metricsServer = await serveMetrics(metrics.registry, opts.metricsPort, host);
  logger.info({ port: opts.port, metricsPort: metricsServer.port }, `${module.name} service listening`);
  const reducer = startMemoryReducer({
    intervalMs: opts.memoryReduceIntervalMs ?? 0,
    registry: metrics.registry,
    logger,
  });
  return {
    server,
    metricsPort: metricsServer.port,
    close: async () => {
      reducer.stop();
      await drain.shutdown();
      await metricsServer.close();
    },
  };
}
