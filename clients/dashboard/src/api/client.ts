import createClient from 'openapi-fetch';
import type { components, paths } from '@kg/sdk/openapi';
import { accessToken, expireAccessToken, refresh } from './session';

export type Schemas = components['schemas'];

/**
 * Sends a request with the session's bearer token; after a 401 it refreshes once and
 * retries (the request is cloned first, so a body can be sent twice).
 */
export async function authorizedFetch(input: Request): Promise<Response> {
  const retry = input.clone();
  const token = await accessToken();
  if (token) input.headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(input);
  if (res.status !== 401 || !token) return res;
  expireAccessToken();
  if (!(await refresh())) return res;
  const again = await accessToken();
  if (again) retry.headers.set('Authorization', `Bearer ${again}`);
  return fetch(retry);
}

/** The typed client of the public REST API (types generated from openapi.json). */
export const api = createClient<paths>({ baseUrl: '/api/v1', fetch: authorizedFetch });

/** An RFC 9457 problem the API answered, with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; errors?: { path?: string; message?: string }[] },
    readonly retryAfter: number | null,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

/** The data of an openapi-fetch result, or an ApiError carrying the problem. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  const retryAfter = result.response.headers.get('Retry-After');
  throw new ApiError(
    result.response.status,
    (result.error ?? {}) as ApiError['problem'],
    retryAfter === null ? null : Number(retryAfter),
  );
}
