import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import cors from 'cors';
import { pinoHttp } from 'pino-http';
import type { JWTVerifyGetKey } from 'jose';
import type { KvStore } from '@kg/kv';
import type { Logger } from '@kg/logger';
import type { GatewayHttpConfig } from './config';
import type { GatewayPeers } from './peers';
import { createAuthenticator } from './http/authenticate';
import { problem, sendProblem, toProblem } from './http/problem';
import { parsePart } from './http/validate';
import { enforceLimits } from './http/rate-limit';
import { buildRoutes } from './routes';
import type { Route } from './routes/route';
import { mountDocs } from './openapi/docs';
import { createMetrics } from '@kg/service-kit';

export interface GatewayDeps {
  config: GatewayHttpConfig;
  peers: GatewayPeers;
  kv: KvStore;
  logger: Logger;
  /** Resolves the auth service's public keys to verify access tokens. */
  keys: JWTVerifyGetKey;
  /** True when every dependency is reachable (GET /readyz). */
  ready: () => Promise<boolean>;
}

export const API_PREFIX = '/api/v1';

/** The public REST surface: authenticates, validates, calls the owning service, maps errors once. */
export function createGatewayApp(deps: GatewayDeps) {
  const { config, peers, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  app.use(pinoHttp({ logger, autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' } }));
  const metrics = createMetrics('gateway');
  app.use(metrics.middleware);
  metrics.mount(app);
  app.use(helmet());
  app.use(
    cors({
      origin: config.CORS_ORIGINS.length ? config.CORS_ORIGINS : false,
      exposedHeaders: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'WWW-Authenticate'],
    }),
  );

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = await deps.ready().catch(() => false);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });

  const routes = buildRoutes(deps.kv, config);
  mountDocs(app, API_PREFIX, routes);

  const api = express.Router();
  api.use(express.json({ limit: config.JSON_BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] }));
  const authenticate = createAuthenticator(peers, deps.keys);
  for (const route of routes) api[route.method](route.path, handler(route, peers, authenticate));
  api.use((req, res) => sendProblem(res, problem(404, 'Not found', `No route for ${req.method} ${req.baseUrl}${req.path}`)));
  api.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(res, bodyError(err) ?? toProblem(err, 'gateway', req.log ?? logger));
  });
  app.use(API_PREFIX, api);
  app.use((req, res) => sendProblem(res, problem(404, 'Not found', `No route for ${req.method} ${req.path}`)));
  return app;
}

function handler(route: Route, peers: GatewayPeers, authenticate: ReturnType<typeof createAuthenticator>) {
  return async (req: Request, res: Response) => {
    try {
      const identity = route.auth === 'required' ? await authenticate(req.header('authorization')) : null;
      if (route.body && req.body === undefined && (req.headers['content-length'] ?? '0') !== '0') {
        sendProblem(res, problem(415, 'Unsupported media type', 'Send the body as application/json'));
        return;
      }
      const result = await route.handle(
        {
          identity,
          params: parsePart(route.params, req.params, 'path'),
          query: parsePart(route.query, req.query, 'query'),
          body: parsePart(route.body, req.body ?? (route.body ? {} : undefined), 'body'),
          ip: req.ip ?? 'unknown',
          limit: (checks) => enforceLimits(res, checks),
        },
        peers,
      );
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      const status = result.status ?? 200;
      if (status === 204 || result.body === undefined) res.status(status).end();
      else res.status(status).json(result.body);
    } catch (err) {
      sendProblem(res, toProblem(err, route.service, req.log));
    }
  };
}

/** Body-parser failures: too large (413) or not JSON (400). */
function bodyError(err: unknown) {
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.too.large') return problem(413, 'Payload too large', 'The JSON body exceeds the size limit');
  if (type === 'entity.parse.failed') return problem(400, 'Invalid request', 'The body is not valid JSON');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return problem(415, 'Unsupported media type', 'Unsupported body encoding');
  return null;
}
