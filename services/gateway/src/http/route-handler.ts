import type { Request, Response } from 'express';
import { z } from 'zod';
import { withRequestId } from '@kg/trpc';
import type { KvStore } from '@kg/kv';
import type { GatewayHttpConfig } from '../config';
import type { GatewayPeers } from '../peers';
import type { LimitGroup, Route } from '../routes/route';
import type { createAuthenticator } from './authenticate';
import type { ApiKeyCache } from './api-key-cache';
import type { ViewCache } from './view-cache';
import { problem, sendProblem, toProblem } from './problem';
import { parsePart } from './validate';
import { enforceLimits } from './rate-limit';
import { discardBody, type DiscardBounds } from './uploads';

type GroupLimits = ReturnType<typeof groupLimits>;

/** Operations without query parameters still reject unknown ones (400), like every other operation. */
const NoQuery = z.object({}).strict();

/** Seconds a refused upload's body is read at most before the answer closes the connection. */
const DISCARD_MAX_MS = 30_000;

/**
 * Limiters of rate-limited route groups, one per tenant and one per credential (`Route.rateLimit`
 * and `req.limitGroup`), and how much of a refused request body is read before answering.
 */
export function groupLimits(kv: KvStore, config: GatewayHttpConfig) {
  const perMinute = (name: string, points: number) => kv.rateLimiter({ name, points, durationSeconds: 60 });
  return {
    graph: {
      tenant: perMinute('graph-tenant', config.GRAPH_RATE_LIMIT_PER_MINUTE),
      credential: perMinute('graph-credential', config.GRAPH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE),
    },
    search: {
      tenant: perMinute('search-tenant', config.SEARCH_RATE_LIMIT_PER_MINUTE),
      credential: perMinute('search-credential', config.SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE),
    },
    captures: {
      tenant: perMinute('captures-tenant', config.CAPTURE_RATE_LIMIT_PER_MINUTE),
      credential: perMinute('captures-credential', config.CAPTURE_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE),
    },
    /** A refused upload's body: up to one file more (plus its form) is read before answering. */
    discardBody: { maxBytes: config.UPLOAD_MAX_BYTES + 1024 * 1024, maxMs: DISCARD_MAX_MS } satisfies DiscardBounds,
  } satisfies Record<LimitGroup, unknown> & { discardBody: DiscardBounds };
}

export function routeHandler(
  route: Route,
  peers: GatewayPeers,
  authenticate: ReturnType<typeof createAuthenticator>,
  limits: GroupLimits,
  apiKeys: ApiKeyCache,
  views: ViewCache,
) {
  // Service calls made for a request carry its id, so their log lines can be joined to it.
  return (req: Request, res: Response) => withRequestId(String(req.id), () => handle(req, res));

  async function handle(req: Request, res: Response) {
    try {
      const identity = route.auth === 'required' ? await authenticate(req.header('authorization')) : null;
      // Read ahead, beside the limits below (a round trip to Redis each in the distributed mode).
      const viewToken = route.keepsViews && identity ? views.token(identity.tenantId) : null;
      viewToken?.catch(() => {}); // a failure is met where it is awaited; a 429 before then drops it
      const limitGroup = async (name: LimitGroup) => {
        if (!identity) return;
        const group = limits[name];
        await enforceLimits(res, [
          [group.tenant, identity.tenantId],
          [group.credential, `${identity.credential.kind}:${identity.credential.id}`],
        ]);
      };
      if (route.rateLimit) await limitGroup(route.rateLimit);
      if (route.body && req.body === undefined) {
        // A body was sent in another media type (415), or none at all: every operation that takes a
        // body requires one (the OpenAPI document says `required: true`), even when all its fields are optional.
        if (hasBody(req)) sendProblem(res, problem(415, 'Unsupported media type', 'Send the body as application/json'));
        else
          sendProblem(
            res,
            problem(400, 'Invalid request', 'This operation needs a JSON body', [
              { path: 'body', message: 'A JSON body is required (send {} to change nothing)' },
            ]),
          );
        return;
      }
      const result = await route.handle(
        {
          identity,
          params: parsePart(route.params, req.params, 'path'),
          query: parsePart(route.query ?? NoQuery, req.query, 'query'),
          body: parsePart(route.body, req.body, 'body'),
          ip: req.ip ?? 'unknown',
          limit: (checks) => enforceLimits(res, checks),
          limitGroup,
          cachedView: async (key, load) =>
            identity ? (await views.view(identity.tenantId, route.operationId, key, load, viewToken)).json : load(),
          forgetApiKey: (id) => apiKeys.revoke(id),
          raw: req,
        },
        peers,
      );
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      const status = result.status ?? 200;
      if (result.stream) await result.stream(res.status(status));
      else if (result.json !== undefined) res.status(status).type('application/json').send(result.json);
      else if (status === 204 || result.body === undefined) res.status(status).end();
      else if (Buffer.isBuffer(result.body)) res.status(status).send(result.body);
      else res.status(status).json(result.body);
    } catch (err) {
      const answer = toProblem(err, route.service, req.log);
      // An upload refused before its body was read: read the rest first, so the client can read the answer.
      if (route.multipart) await discardBody(req, res, limits.discardBody);
      if (!res.headersSent) sendProblem(res, answer);
    }
  }
}

/** True when the request carries a body (a length above zero, or a chunked one). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined;
}

/** Failures before a route runs: a path that is not valid percent-encoding (400), body-parser errors (413, 400, 415). */
export function requestError(err: unknown) {
  if (err instanceof URIError) return problem(400, 'Invalid request', 'The request path is not valid percent-encoding');
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.too.large') return problem(413, 'Payload too large', 'The JSON body exceeds the size limit');
  if (type === 'entity.parse.failed') return problem(400, 'Invalid request', 'The body is not valid JSON');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return problem(415, 'Unsupported media type', 'Unsupported body encoding');
  return null;
}
