import createClient from 'openapi-fetch';
import type { components, paths } from '@kg/sdk/openapi';
import type { Settings } from './settings';

export type Capture = components['schemas']['Capture'];
export type CreateCapture = components['schemas']['CreateCaptureInput'];
export type CapturedUrl = components['schemas']['CapturedUrl'];

/** The server answered with a problem (RFC 9457): a status and what it said. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    detail: string,
    /** Seconds the server asked to wait (429, 503). */
    readonly retryAfter: number | null,
  ) {
    super(detail);
  }
  /** Worth sending again later: the server is busy or down, not refusing this capture. */
  get transient(): boolean {
    return this.status === 429 || this.status === 408 || this.status >= 500;
  }
}

/** The server could not be reached (offline, DNS, TLS, refused): kept and sent later. */
export class Unreachable extends Error {}

async function problemOf(res: Response): Promise<ApiProblem> {
  let detail = `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as {
      title?: string;
      detail?: string;
      errors?: { path?: string; message?: string }[];
    };
    detail = [body.detail ?? body.title, ...(body.errors ?? []).map((e) => `${e.path}: ${e.message}`)]
      .filter(Boolean)
      .join(' — ');
  } catch {
    // not JSON
  }
  const after = Number(res.headers.get('retry-after'));
  return new ApiProblem(res.status, detail, Number.isFinite(after) && after > 0 ? after : null);
}

/** The public API with this extension's API key (`Authorization: ApiKey …`). */
export function apiClient(settings: Settings, fetchImpl: typeof fetch = fetch) {
  const client = createClient<paths>({
    baseUrl: `${settings.server}/api/v1`,
    headers: { authorization: `ApiKey ${settings.apiKey}` },
    fetch: async (input: Request) => {
      try {
        return await fetchImpl(input);
      } catch (err) {
        throw new Unreachable(`${settings.server} cannot be reached: ${String(err)}`);
      }
    },
  });
  const answer = async <T>(result: Promise<{ data?: T; response: Response }>): Promise<T> => {
    const { data, response } = await result;
    if (!response.ok) throw await problemOf(response);
    return data as T;
  };
  return {
    /** Who the key belongs to (the options page's connection test). */
    me: () => answer(client.GET('/auth/me')),
    /** The latest capture of `url`, or null when it was never captured. */
    check: async (url: string): Promise<CapturedUrl | null> => {
      try {
        return await answer(client.GET('/captures/check', { params: { query: { url } } }));
      } catch (err) {
        if (err instanceof ApiProblem && err.status === 404) return null;
        throw err;
      }
    },
    create: (body: CreateCapture) => answer(client.POST('/captures', { body })),
    get: (id: string) => answer(client.GET('/captures/{id}', { params: { path: { id } } })),
    /** Runs a failed capture's pipeline again (409 unless it is `failed`). */
    retry: (id: string) => answer(client.POST('/captures/{id}/retry', { params: { path: { id } } })),
  };
}
export type Api = ReturnType<typeof apiClient>;
