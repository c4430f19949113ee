import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import cors from 'cors';
import type { JWTVerifyGetKey } from 'jose';
import { createViewVersions, guardKv, type KvStore } from '@kg/kv';
import type { Logger } from '@kg/logger';
import type { GatewayHttpConfig } from './config';
import type { GatewayPeers } from './peers';
import { createAuthenticator } from './http/authenticate';
import { ApiKeyCache } from './http/api-key-cache';
import { problem, sendProblem, toProblem } from './http/problem';
import { groupLimits, requestError, routeHandler } from './http/route-handler';
import { IETF_RATE_LIMIT_HEADERS, RATE_LIMIT_HEADERS } from './http/rate-limit';
import { ViewCache } from './http/view-cache';
import { mountMethodNotAllowed } from './http/method-not-allowed';
import { requestLogger } from './http/request-log';
import { mountDashboard } from './http/dashboard';
import { buildRoutes } from './routes';
import { SEARCH_FALLBACK_HEADER } from './routes/search';
import { createEventFeed, type EventFeed } from './events/feed';
import { mountDocs } from './openapi/docs';
import { createMetrics, type Metrics } from '@kg/service-kit';

export interface GatewayDeps {
  config: GatewayHttpConfig;
  peers: GatewayPeers;
  kv: KvStore;
  logger: Logger;
  /** Resolves the auth service's public keys to verify access tokens. */
  keys: JWTVerifyGetKey;
  /** True when the gateway's own dependencies are reachable (GET /readyz); never its peers. */
  ready: () => Promise<boolean>;
  /**
   * What answers in a reduced way while the gateway stays ready (the embedded server's
   * modules: `vectors` while the vector index is unreachable), named in /readyz's body.
   */
  degraded?: () => Promise<string[]>;
  /** Request metrics, served on the separate METRICS_PORT by the caller (never on this app). */
  metrics?: Metrics;
  /** Live events for GET /events, fed from the bus by the caller (none: streams stay silent). */
  events?: EventFeed;
  /** Verified API keys, invalidated by the caller from the bus (revocationsFromBus); default: TTL only. */
  apiKeys?: ApiKeyCache;
}

export const API_PREFIX = '/api/v1';

export const apiKeyCache = (config: GatewayHttpConfig) =>
  new ApiKeyCache({ ttlSeconds: config.API_KEY_CACHE_TTL_SECONDS, maxEntries: config.API_KEY_CACHE_MAX_ENTRIES });

/** The public REST surface: authenticates, validates, calls the owning service, maps errors once. */
export function createGatewayApp(deps: GatewayDeps) {
  const { config, peers, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // JSON answers carry no ETag: express would hash every body (a 340 KB graph view each time) for
  // conditional requests no client makes; the dashboard's static assets keep theirs (serve-static).
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  app.use(requestLogger(logger, (path) => path === '/healthz' || path === '/readyz'));
  const metrics = deps.metrics ?? createMetrics('gateway');
  app.use(metrics.middleware);
  app.use(helmet());
  app.use(
    cors({
      origin: config.CORS_ORIGINS.length ? config.CORS_ORIGINS : false,
      exposedHeaders: [...RATE_LIMIT_HEADERS, ...IETF_RATE_LIMIT_HEADERS, SEARCH_FALLBACK_HEADER, 'WWW-Authenticate'],
    }),
  );

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = await deps.ready().catch(() => false);
    const degraded = ready && deps.degraded ? await deps.degraded().catch((): string[] => []) : [];
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'not ready', ...(degraded.length > 0 ? { degraded } : {}) });
  });

  // A kv outage (Redis down) answers 503 with Retry-After wherever limits are consumed.
  const kv = guardKv(deps.kv);
  const routes = buildRoutes(kv, config, deps.events ?? createEventFeed());
  mountDocs(app, API_PREFIX, routes);

  const api = express.Router();
  const json = express.json({ limit: config.JSON_BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] });
  const apiKeys = deps.apiKeys ?? apiKeyCache(config);
  const authenticate = createAuthenticator(peers, deps.keys, apiKeys);
  const limits = groupLimits(kv, config);
  const views = new ViewCache(createViewVersions(kv), {
    maxBytes: config.VIEW_CACHE_MAX_BYTES,
    maxAgeSeconds: config.VIEW_CACHE_MAX_AGE_SECONDS,
    registry: metrics.registry,
  });
  // Bodies are parsed only where an operation takes one (elsewhere they are ignored, never a 413).
  for (const route of routes)
    api[route.method](
      route.path,
      ...(route.body ? [json] : []),
      routeHandler(route, peers, authenticate, limits, apiKeys, views),
    );
  mountMethodNotAllowed(api, routes);
  api.use((req, res) =>
    sendProblem(res, problem(404, 'Not found', `No route for ${req.method} ${req.baseUrl}${req.path}`)),
  );
  api.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, requestError(err) ?? toProblem(err, 'gateway', req.log ?? logger));
  });
  app.use(API_PREFIX, api);
  mountDashboard(app, config.DASHBOARD_DIR, API_PREFIX, logger);
  app.use((req, res) => sendProblem(res, problem(404, 'Not found', `No route for ${req.method} ${req.path}`)));
  return app;
}
