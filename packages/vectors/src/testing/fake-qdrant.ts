import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeQdrantState, type Reply } from './fake-qdrant-state';
import type { OpenApiChecker } from './openapi-check';

/** One request/response pair the fake saw, with any OpenAPI violations found in it. */
export interface Exchange {
  method: string;
  path: string;
  /** The document's path template, e.g. `/collections/{collection_name}/points`. */
  operation: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
  violations: string[];
}

export interface FakeQdrant {
  url: string;
  exchanges: Exchange[];
  /** Violations since the last call (a test asserts none after each test). */
  takeViolations(): string[];
  close(): Promise<void>;
}

/**
 * A small Qdrant stand-in over real HTTP on 127.0.0.1 (random port). Every request
 * and every response is checked against Qdrant's OpenAPI document; a request that
 * fails is answered 400, so the adapter sees an error as it would from Qdrant.
 */
export async function startFakeQdrant(checker: OpenApiChecker): Promise<FakeQdrant> {
  const state = createFakeQdrantState();
  const exchanges: Exchange[] = [];
  let pending: string[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      const violations: string[] = [];
      let requestBody: unknown;
      try {
        requestBody = text === '' ? undefined : JSON.parse(text);
      } catch {
        violations.push(`${method} ${url.pathname}: body is not JSON`);
      }
      violations.push(...checker.checkRequest(method, url.pathname + url.search, requestBody));
      const template = checker.findTemplate(method, url.pathname) ?? url.pathname;
      const operation = `${method} ${template}`;
      const name = decodeURIComponent(url.pathname.split('/')[2] ?? '');
      let reply: Reply | undefined;
      try {
        if (violations.length === 0)
          reply = state.handle(operation, name, (requestBody ?? {}) as Record<string, unknown>);
      } catch (err) {
        violations.push(`${operation}: fake crashed: ${String(err)}`);
      }
      if (!reply) {
        if (violations.length === 0) violations.push(`${operation}: not implemented by the fake`);
        reply = { status: 400, body: { status: { error: `fake: ${violations.join('; ')}` }, time: 0 } };
      }
      const contentType = reply.contentType ?? 'application/json';
      const payload = contentType === 'application/json' ? JSON.stringify(reply.body) : String(reply.body);
      violations.push(
        ...checker.checkResponse({
          method,
          url: url.pathname,
          requestBody,
          status: reply.status,
          contentType,
          responseBody: reply.body,
        }),
      );
      exchanges.push({
        method,
        path: url.pathname,
        operation: template,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        requestBody,
        status: reply.status,
        responseBody: reply.body,
        violations,
      });
      pending.push(...violations);
      res.writeHead(reply.status, { 'content-type': contentType }).end(payload);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    takeViolations() {
      const taken = pending;
      pending = [];
      return taken;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
