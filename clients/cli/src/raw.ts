import { apiErrorFrom } from '@kg/sdk';
import { kg } from './context.ts';

/**
 * A JSON call outside the typed client, for the sign-in endpoints (`auth: false` sends no
 * credential). Errors become ApiError like everywhere else.
 */
export async function callJson<T>(
  method: string,
  path: string,
  opts: { body?: unknown; auth?: boolean; query?: Record<string, string> } = {},
): Promise<T> {
  const client = kg();
  const url = new URL(client.baseUrl + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const make = () =>
    new Request(url, {
      method,
      headers: opts.body === undefined ? {} : { 'content-type': 'application/json' },
      body: opts.body === undefined ? null : JSON.stringify(opts.body),
      redirect: 'manual',
    });
  const res = opts.auth === false ? await client.session.send(make()) : await client.session.fetch(make);
  if (!res.ok) throw await apiErrorFrom(res);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
