import createClient, { type Client } from 'openapi-fetch';
import { ApiError, type FieldError } from './errors.ts';
import type { components, paths } from './openapi.ts';
import { Session, type SessionOptions } from './session.ts';

/** Typed client of the public REST API: `kg.api.GET('/nodes/{id}', { params: { path: { id } } })`. */
export interface KgClient {
  readonly baseUrl: string;
  readonly session: Session;
  /** openapi-fetch client over the paths of the generated OpenAPI types; every request goes through the session. */
  readonly api: Client<paths>;
}

/** Creates the client; the session (credential, refresh) comes from the environment unless given. */
export function createKgClient(opts: SessionOptions & { session?: Session } = {}): KgClient {
  const session = opts.session ?? new Session(opts);
  const api = createClient<paths>({
    baseUrl: session.baseUrl,
    fetch: (req) => session.fetch(req),
  });
  return { baseUrl: session.baseUrl, session, api };
}

type Answer = { data?: unknown; error?: unknown; response: Response };

/**
 * Awaits an openapi-fetch call and returns its data, or throws an ApiError built from the
 * problem+json body: `const node = await ok(kg.api.GET('/nodes/{id}', …))`.
 */
export async function ok<R extends Answer>(call: Promise<R>): Promise<Exclude<R['data'], undefined>> {
  const { data, error, response } = await call;
  if (!response.ok) throw problemToError(error, response);
  return data as Exclude<R['data'], undefined>;
}

/** An ApiError from a parsed problem body (openapi-fetch has read it already). */
export function problemToError(body: unknown, res: Response): ApiError {
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const errors = Array.isArray(b['errors'])
    ? (b['errors'] as unknown[]).filter(
        (e): e is FieldError => !!e && typeof e === 'object' && typeof (e as FieldError).path === 'string',
      )
    : [];
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError({
    status: res.status,
    type: str(b['type']),
    title: str(b['title']) ?? (res.statusText || undefined),
    detail: str(b['detail']) ?? (typeof body === 'string' && body ? body.slice(0, 500) : undefined),
    errors,
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: Number.isFinite(retry) && retry > 0 ? retry : undefined,
  });
}

/** Shapes of the public API, from the generated OpenAPI types. */
export type Schemas = components['schemas'];
export type Node = Schemas['Node'];
export type NodePage = Schemas['NodePage'];
export type ParaItem = Schemas['ParaItem'];
export type Capture = Schemas['Capture'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type SeedView = Schemas['SeedView'];
export type NeighborsView = Schemas['NeighborsView'];
export type Problem = Schemas['Problem'];
