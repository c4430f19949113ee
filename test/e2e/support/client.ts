import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { Problem, TokenPair } from '@kg/contracts';

export interface Res<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  token: string;
}

/**
 * Remembers secrets so the log test can prove none reached the server log. Test files
 * run in separate workers, so the list lives in a file that global setup created.
 */
export function remember(...secrets: Array<string | undefined>): void {
  const all = new Set<string>();
  for (const s of secrets) {
    if (typeof s !== 'string' || !s) continue;
    all.add(s);
    // `{id}.{secret}` (API keys, refresh tokens) and JWTs (header.payload.signature):
    // the part after the last dot is secret on its own.
    const tail = s.slice(s.lastIndexOf('.') + 1);
    if (s.includes('.') && tail.length >= 16) all.add(tail);
  }
  if (all.size) appendFileSync(inject('secretsPath'), [...all].map((s) => s + '\n').join(''));
}

/** Records every credential a response hands out, so no test can forget one. */
function harvest(body: unknown): void {
  if (!body || typeof body !== 'object') return;
  const b = body as Record<string, unknown>;
  const found = ['access_token', 'refresh_token', 'key', 'token', 'secret'].map((k) => b[k]);
  remember(...found.filter((v): v is string => typeof v === 'string'));
}

export async function api<T = any>(
  method: string,
  path: string,
  opts: { body?: unknown; auth?: string; headers?: Record<string, string>; raw?: string } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers['authorization'] = opts.auth;
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] ??= 'application/json';
  const prefix = path.startsWith('/healthz') || path.startsWith('/readyz') ? '' : '/api/v1';
  const res = await fetch(`${inject('baseUrl')}${prefix}${path}`, {
    method,
    headers,
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  harvest(body);
  return { status: res.status, headers: res.headers, body: body as T };
}

function outbox(): Array<{ file: string; mail: Mail }> {
  const dir = inject('outboxDir');
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
    .sort()
    .map((file) => ({ file, mail: JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Mail }));
}

/** The newest outbox mail sent to `email` (its token is remembered as a secret). */
export function lastMail(email: string): Mail {
  const mine = outbox().filter((m) => m.mail.to === email.toLowerCase());
  if (!mine.length) throw new Error(`no mail to ${email} in ${inject('outboxDir')}`);
  const { mail } = mine.at(-1)!;
  remember(mail.token);
  return mail;
}

/** Requests a magic link and waits for the new mail it produces. */
export async function requestMagicLink(email: string): Promise<{ res: Res; mail: Mail }> {
  const before = new Set(outbox().map((m) => m.file));
  const res = await api('POST', '/auth/magic-link', { body: { email } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const fresh = outbox().filter((m) => !before.has(m.file) && m.mail.to === email.toLowerCase());
    if (fresh.length) {
      const { mail } = fresh.at(-1)!;
      remember(mail.token);
      return { res, mail };
    }
    if (Date.now() > deadline) throw new Error(`no new mail to ${email} within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Session {
  email: string;
  access_token: string;
  refresh_token: string;
  bearer: string;
}

export async function signIn(email: string): Promise<Session> {
  const { mail } = await requestMagicLink(email);
  const res = await api<TokenPair>('POST', '/auth/magic-link/verify', { body: { token: mail.token } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const pair = conforms(TokenPair, res.body);
  return {
    email,
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    bearer: `Bearer ${pair.access_token}`,
  };
}

let counter = 0;
export const uniqueEmail = (tag = 'user') =>
  `${tag}-${Date.now().toString(36)}-${process.pid.toString(36)}-${(counter++).toString(36)}@e2e.test`;

/** A fresh person with a fresh tenant. */
export const newTenant = (tag?: string) => signIn(uniqueEmail(tag));

/** Parses `value` with a contract schema and fails the test with the issues when it does not conform. */
export function conforms<T>(
  schema: { safeParse(v: unknown): { success: boolean; data?: T; error?: { issues: unknown } } },
  value: unknown,
): T {
  const r = schema.safeParse(value);
  expect(r.success, `${JSON.stringify(value)}\n${JSON.stringify(r.error?.issues)}`).toBe(true);
  return r.data as T;
}

export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: Array<{ path: string; message: string }>;
};

/** Asserts an RFC 9457 problem response with this status, and nothing beyond the problem fields. */
export function expectProblem(res: Res, status: number): ProblemBody {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  conforms(Problem, res.body);
  const body = res.body as ProblemBody;
  expect(body).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(
    Object.keys(body).filter((k) => !['type', 'title', 'status', 'detail', 'instance', 'errors'].includes(k)),
  ).toEqual([]);
  return body;
}

/** Asserts a 401 problem that tells the client how to authenticate. */
export function expectUnauthorized(res: Res): ProblemBody {
  const p = expectProblem(res, 401);
  expect(res.headers.get('www-authenticate'), 'WWW-Authenticate').toMatch(/Bearer|ApiKey/);
  return p;
}

export async function createNode(auth: string, body: Record<string, unknown>) {
  const res = await api<{ id: string; title: string; created_at: string; updated_at: string }>('POST', '/nodes', {
    auth,
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A well-formed node id that no tenant has. */
export const UNKNOWN_NODE = 'node_01jd8x6q1bf5r3v2m9w7k4t0za';
