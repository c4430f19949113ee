import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Identity } from '@kg/contracts';
import type { RateLimiter } from '@kg/kv';
import type { JsonAnswer } from '@kg/trpc';
import type { GatewayPeers } from '../peers';

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** Route groups limited per tenant and per credential (services/gateway/src/http/route-handler.ts). */
export type LimitGroup = 'graph' | 'search' | 'captures';

/** A JSON answer kept as its UTF-8 bytes (the gateway's kept views): written to every response as is. */
export type JsonBytes = Buffer & { readonly __jsonBytes: unique symbol };

export interface RouteRequest<P, Q, B> {
  identity: Identity | null;
  params: P;
  query: Q;
  body: B;
  ip: string;
  /** Consumes rate-limit points (sets RateLimit-* headers; throws 429 when exhausted). */
  limit(checks: Array<[RateLimiter, string]>): Promise<void>;
  /** Consumes a point of a group's limits for the caller's tenant and credential (429 when exhausted). */
  limitGroup(group: LimitGroup): Promise<void>;
  /**
   * A graph view of the caller's tenant: kept by the gateway under the tenant's view token and
   * served again until a write changes that token; `key` names the view (its validated input).
   */
  cachedView(key: string, load: () => Promise<JsonAnswer>): Promise<JsonAnswer | JsonBytes>;
  /** Drops an API key from this gateway's cache of verified keys at once (its revocation). */
  forgetApiKey(id: string): void;
  /** The request itself, for operations that read their body as a stream (uploads). */
  raw: Request;
}

export interface RouteResult {
  status?: number;
  /** JSON, or a Buffer sent as is (set its Content-Type in `headers`). */
  body?: unknown;
  /** JSON a service wrote (checked there against the operation's schema), sent as it is: text, or its UTF-8 bytes. */
  json?: JsonAnswer | JsonBytes;
  /** Response headers; an array sends the header once per value (Set-Cookie). */
  headers?: Record<string, string | string[]>;
  /** A response the route writes itself (server-sent events); it resolves when the response ends. */
  stream?: (res: Response) => Promise<void>;
}

/**
 * One public REST operation: validation schemas (shared zod contracts), what it
 * answers, and the call it makes to the owning service. The OpenAPI document is
 * generated from the same objects.
 */
export interface Route<P = unknown, Q = unknown, B = unknown> {
  method: Method;
  /** Express-style path under /api/v1, e.g. `/nodes/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: 'required' | 'none';
  /** The service that owns the operation (named in 503 problems). */
  service: keyof GatewayPeers;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  success: {
    status: number;
    description: string;
    schema?: z.ZodType;
    /** Media types of a response that is not JSON (a file, markdown, an event stream). */
    media?: readonly string[];
  };
  /** A multipart/form-data body read as a stream by the route (schema for the OpenAPI document). */
  multipart?: z.ZodType;
  /** Error statuses documented for this operation besides 401/400/500. */
  errors?: readonly number[];
  /** Rate-limited group (per tenant and per credential), e.g. the graph endpoints. */
  rateLimit?: LimitGroup;
  /** The operation answers through `cachedView`: the tenant's view token is read while its limits are consumed. */
  keepsViews?: boolean;
  handle(req: RouteRequest<P, Q, B>, peers: GatewayPeers): Promise<RouteResult>;
}

export const defineRoute = <P, Q, B>(route: Route<P, Q, B>): Route => route as unknown as Route;

export const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
/** 200 with a service's answer forwarded as the JSON text it wrote (no parse, no second write). */
export const forward = (json: JsonAnswer | JsonBytes): RouteResult => ({ status: 200, json });
export const noContent = (): RouteResult => ({ status: 204 });
