import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@kg/logger';

/** An inbound `X-Request-Id` is kept when it looks like one (a proxy's or a client's); otherwise a fresh UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const inbound = req.headers['x-request-id'];
  const id = typeof inbound === 'string' && REQUEST_ID.test(inbound) ? inbound : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/** The path of a request URL, without its query string (which may carry a token someone pasted there). */
export const pathOnly = (url: string | undefined) => (url ?? '').split('?')[0]!;

interface SerializedReq {
  id: string;
  method: string;
  url?: string;
  remoteAddress?: string;
  headers: Record<string, string | undefined>;
}

/**
 * The access log: one line per request with its id, method and path (never the query
 * string), the client address and user agent, status (no response headers) and duration. Every line logged
 * through `req.log` while handling the request carries the same `req.id`.
 */
export function requestLogger(logger: Logger, quiet: (path: string) => boolean) {
  return pinoHttp({
    logger,
    genReqId: requestId,
    autoLogging: { ignore: (req) => quiet(pathOnly(req.url)) },
    serializers: {
      req: (req: SerializedReq) => ({
        id: req.id,
        method: req.method,
        path: pathOnly(req.url),
        remoteAddress: req.remoteAddress,
        userAgent: req.headers['user-agent'],
      }),
      // The status only: response headers may carry credentials (Set-Cookie of the session, a
      // Location with a one-time sign-in code).
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
