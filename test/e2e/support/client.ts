import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, inject } from 'vitest';

export interface Res<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** Remembers a secret so the log test can prove it never reached the server log. */
export function remember(...secrets: string[]): void {
  appendFileSync(
    inject('secretsPath'),
    secrets
      .filter(Boolean)
      .map((s) => s + '\n')
      .join(''),
  );
}

export async function api<T = any>(
  method: string,
  path: string,
  opts: { body?: unknown; auth?: string; headers?: Record<string, string>; raw?: string } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers['authorization'] = opts.auth;
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(
    `${inject('baseUrl')}${path.startsWith('/healthz') || path.startsWith('/readyz') ? '' : '/api/v1'}${path}`,
    {
      method,
      headers,
      body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    },
  );
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: body as T };
}

/** The newest outbox mail sent to `email`. */
export function lastMail(email: string): { to: string; subject: string; text: string; token: string } {
  const dir = inject('outboxDir');
  const mails = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map(
      (f) =>
        JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as {
          to: string;
          subject: string;
          text: string;
          token: string;
        },
    );
  const mine = mails.filter((m) => m.to === email);
  if (!mine.length) throw new Error(`no mail to ${email}`);
  return mine.at(-1)!;
}

export interface Session {
  email: string;
  access_token: string;
  refresh_token: string;
  bearer: string;
}

export async function signIn(email: string): Promise<Session> {
  const req = await api('POST', '/auth/magic-link', { body: { email } });
  expect(req.status).toBe(202);
  const { token } = lastMail(email.toLowerCase());
  const res = await api<{ access_token: string; refresh_token: string }>('POST', '/auth/magic-link/verify', {
    body: { token },
  });
  expect(res.status).toBe(200);
  remember(token, res.body.access_token, res.body.refresh_token);
  return { email, ...res.body, bearer: `Bearer ${res.body.access_token}` };
}

let counter = 0;
export const uniqueEmail = (tag = 'user') => `${tag}-${Date.now().toString(36)}-${(counter++).toString(36)}@e2e.test`;

/** A fresh person with a fresh tenant. */
export const newTenant = (tag?: string) => signIn(uniqueEmail(tag));

/** Asserts an RFC 9457 problem response with this status. */
export function expectProblem(
  res: Res,
  status: number,
): { type: string; title: string; status: number; detail: string; errors?: Array<{ path: string; message: string }> } {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const body = res.body as { type: string; title: string; status: number; detail: string };
  expect(body).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  return body;
}

export async function createNode(auth: string, body: Record<string, unknown>) {
  const res = await api<{ id: string; created_at: string; updated_at: string }>('POST', '/nodes', { auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
