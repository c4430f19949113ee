import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { ApiError, type KgClient } from '@kg/sdk';
import { describeError } from '../errors.ts';
import { createKgServer } from '../server.ts';
import { parseAuthorization } from './credential.ts';
import { Principals } from './principals.ts';

export interface HttpOptions {
  host: string;
  port: number;
  /** An API client sending exactly this Authorization header (no refresh, no store). */
  clientForHeader: (authorization: string) => KgClient;
  /** A session unused this long is closed. */
  idleMs?: number;
  log?: (line: string) => void;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  principal: string;
  lastSeen: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const WWW_AUTHENTICATE = 'Bearer realm="kg-mcp", ApiKey realm="kg-mcp"';

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  const json = 'jsonrpc' in (body as object);
  res.writeHead(status, { 'content-type': json ? 'application/json' : 'application/problem+json', ...headers });
  res.end(JSON.stringify(body));
}

function problem(res: ServerResponse, status: number, title: string, detail: string, headers?: Record<string, string>) {
  const slug = title.toLowerCase().replace(/\s+/g, '-');
  send(res, status, { type: `https://kg.dev/problems/${slug}`, title, status, detail }, headers);
}

/**
 * The streamable HTTP transport at `/mcp`. Every request must carry the caller's own
 * credential (`Authorization: Bearer <access token>` or `ApiKey <key>`; none answers 401),
 * which is checked with the API (GET /auth/me) and passed through to it for every tool call
 * of that request: kg-mcp holds no credential of its own. A session is bound to the caller
 * that opened it (tenant and user), so a refreshed access token keeps the session and
 * another caller's token on it answers 403.
 */
export async function startHttpServer(
  opts: HttpOptions,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const log = opts.log ?? (() => {});
  const idleMs = opts.idleMs ?? 30 * 60_000;
  const sessions = new Map<string, Session>();
  const principals = new Principals(opts.clientForHeader);
  const checkHost = LOOPBACK.has(opts.host);

  const apiFor = (extra: { authInfo?: AuthInfo }): KgClient => {
    // Every request reaching a tool passed the credential check below, which sets authInfo.
    if (!extra.authInfo) throw new Error('No credential on this request');
    return opts.clientForHeader(extra.authInfo.token);
  };

  async function handle(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return problem(res, 404, 'Not Found', 'The MCP endpoint is /mcp');
    if (checkHost) {
      // Bound to loopback: refuse other Host names (DNS rebinding).
      let hostname = '';
      try {
        hostname = new URL(`http://${req.headers.host ?? ''}`).hostname;
      } catch {
        // stays empty: refused below
      }
      if (!LOOPBACK.has(hostname)) return problem(res, 403, 'Forbidden', 'Host not allowed');
    }
    const cred = parseAuthorization(req.headers.authorization);
    if (!cred) {
      return problem(
        res,
        401,
        'Unauthorized',
        'Send your own credential: Authorization: Bearer <access token or API key> or ApiKey <key>',
        { 'www-authenticate': WWW_AUTHENTICATE },
      );
    }
    let principal: string;
    try {
      principal = await principals.resolve(cred);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401)
        return problem(res, 401, 'Unauthorized', describeError(err), { 'www-authenticate': WWW_AUTHENTICATE });
      log(`kg-mcp: credential check failed: ${describeError(err)}`);
      return problem(res, 502, 'Bad Gateway', 'The knowledge-graph API could not check the credential; try again');
    }
    req.auth = { token: cred.header, clientId: principal, scopes: [] };

    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const session = sessions.get(sid);
      if (!session) {
        return send(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
      }
      if (session.principal !== principal) {
        return problem(res, 403, 'Forbidden', 'This MCP session belongs to another caller');
      }
      session.lastSeen = Date.now();
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') {
      return send(res, 400, {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Bad Request: no mcp-session-id; start with an initialize POST' },
        id: null,
      });
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, principal, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = createKgServer(apiFor);
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize request (the transport answered 400): nothing to keep.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close();
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`kg-mcp: request failed: ${describeError(err)}`);
      problem(res, 500, 'Internal Server Error', 'An unexpected error occurred');
    });
  });
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, s] of sessions) {
        if (s.lastSeen < cutoff) {
          sessions.delete(id);
          void s.transport.close();
        }
      }
    },
    Math.min(60_000, idleMs),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve());
  });
  const addr = http.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}/mcp`;
  return {
    server: http,
    url,
    async close() {
      clearInterval(sweep);
      for (const s of sessions.values()) await s.transport.close();
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
