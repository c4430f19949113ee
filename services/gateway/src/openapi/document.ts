import { type z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import { Problem } from '@kg/contracts';
import type { Route } from '../routes/route';

const STATUS_TEXT: Record<number, string> = {
  400: 'Validation failed (problem+json with `errors`)',
  401: 'Missing or invalid credentials (with WWW-Authenticate)',
  403: 'Not allowed with this credential',
  404: 'Not found, malformed id, or another tenant’s',
  405: 'Method not allowed on this path (with Allow)',
  408: 'The body did not arrive in time (the connection is closed)',
  409: 'State conflict',
  410: 'Gone',
  413: 'Body too large',
  415: 'Unsupported media type',
  429: 'Rate limited (Retry-After and RateLimit-* headers)',
  500: 'Unexpected error (logged with the request id; no details returned)',
  501: 'Not implemented yet in this release',
  503: 'A dependency is unavailable; retry later (Retry-After when known)',
};

const problemResponse = (status: number) => ({
  description: STATUS_TEXT[status] ?? 'Error',
  content: { 'application/problem+json': { schema: Problem } },
});

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/**
 * Every status an operation can really answer: 400 (any request can fail validation, even
 * its path), 401 when it needs credentials, 413 and 415 where it takes a body, 429 where it
 * is rate-limited, its own errors, and 500 and 503 everywhere (a service may be down).
 */
export function operationStatuses(route: Route): number[] {
  const statuses = new Set<number>([
    400,
    ...(route.auth === 'required' ? [401] : []),
    ...(route.body || route.multipart ? [413, 415] : []),
    ...(route.rateLimit ? [429] : []),
    ...(route.errors ?? []),
    500,
    503,
  ]);
  return [...statuses].sort((a, b) => a - b);
}

function operation(route: Route): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  if (route.success.status >= 400) {
    // An operation that always fails (DELETE /para/:id: 410) answers a problem like any error.
    responses[String(route.success.status)] = {
      ...problemResponse(route.success.status),
      description: route.success.description,
    };
  } else {
    const { media, schema, description } = route.success;
    responses[String(route.success.status)] = media
      ? { description, content: Object.fromEntries(media.map((m) => [m, { schema: { type: 'string' as const } }])) }
      : schema
        ? { description, content: { 'application/json': { schema } } }
        : { description };
  }
  for (const s of operationStatuses(route)) responses[String(s)] = problemResponse(s);
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    security: route.auth === 'required' ? [{ bearer: [] }, { apiKey: [] }] : [],
    requestParams: {
      ...(route.params ? { path: route.params as z.ZodObject } : {}),
      ...(route.query ? { query: route.query as z.ZodObject } : {}),
    },
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    ...(route.multipart
      ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: route.multipart } } } }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(routes: Route[], prefix: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const key = toOpenApiPath(route.path);
    paths[key] = { ...paths[key], [route.method]: operation(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Knowledge Graph API',
      version: '1.0.0',
      description:
        'Multi-tenant knowledge graph: nodes, typed weighted bidirectional links, PARA, captures, search and graph views. ' +
        'Errors are RFC 9457 problem+json. A method a path does not list answers 405 with `Allow` ' +
        '(components.responses.MethodNotAllowed). See docs/API.md for the decisions taken where SPEC.md is silent.',
    },
    servers: [{ url: prefix }],
    paths,
    components: {
      responses: { MethodNotAllowed: problemResponse(405) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token (15 minutes)' },
        apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`ApiKey <key_id>.<secret>`' },
      },
    },
  });
}
