/**
 * The public API as the k8s test drives it (scripts/k8s/test.ts): calls through the gateway's
 * Service, sign-in by magic link read from the SMTP sink, an API key for the long phases, and
 * a writer that keeps creating nodes and remembers each one the API acknowledged.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Answer<T> {
  status: number;
  body: T;
  text: string;
}

/** One call; a network error is an answer with status 0 (the caller counts it as a failure). */
export async function call<T = unknown>(
  base: string,
  method: string,
  url: string,
  opts: { body?: unknown; auth?: string; timeoutMs?: number } = {},
): Promise<Answer<T>> {
  try {
    const res = await fetch(`${base}/api/v1${url}`, {
      method,
      headers: {
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(opts.auth ? { authorization: opts.auth } : {}),
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, body: body as T, text };
  } catch (err) {
    return { status: 0, body: undefined as T, text: (err as Error).message };
  }
}

/** A fresh tenant: a magic link by SMTP (the sink's folder), exchanged for an API key. */
export async function signIn(base: string, outbox: string, tag: string): Promise<string> {
  const email = `k8s-${tag}-${Date.now().toString(36)}@e2e.test`;
  const asked = await call(base, 'POST', '/auth/magic-link', { body: { email } });
  if (asked.status !== 202) throw new Error(`magic link: ${asked.status} ${asked.text}`);
  for (let i = 0; i < 600; i++) {
    for (const f of readdirSync(outbox).filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
      const mail = JSON.parse(readFileSync(path.join(outbox, f), 'utf8')) as { to: string; token: string };
      if (mail.to !== email) continue;
      const pair = await call<{ access_token: string }>(base, 'POST', '/auth/magic-link/verify', {
        body: { token: mail.token },
      });
      if (pair.status !== 200) throw new Error(`magic-link verify: ${pair.status} ${pair.text}`);
      const key = await call<{ key: string }>(base, 'POST', '/auth/api-keys', {
        auth: `Bearer ${pair.body.access_token}`,
        body: { name: `k8s-${tag}` },
      });
      if (key.status !== 201) throw new Error(`api key: ${key.status} ${key.text}`);
      return `ApiKey ${key.body.key}`;
    }
    await sleep(100);
  }
  throw new Error(`no sign-in mail to ${email} in ${outbox}`);
}

/**
 * Keeps one request in flight at a time, each a node creation followed by a read of it, until
 * stopped; every failure is kept (status, text, when). `acknowledged` holds the nodes the API
 * answered 201 for: none of them may be lost.
 */
export class Writer {
  readonly acknowledged: string[] = [];
  readonly failures: Array<{ at: string; what: string; status: number; text: string }> = [];
  requests = 0;
  private stopped = false;
  private done: Promise<void> | undefined;

  constructor(
    private readonly base: string,
    private readonly auth: string,
    private readonly tag: string,
  ) {}

  start(): this {
    this.done = this.loop();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  private async loop() {
    for (let i = 0; !this.stopped; i++) {
      const created = await call<{ id: string }>(this.base, 'POST', '/nodes', {
        auth: this.auth,
        body: { title: `${this.tag} note ${i}`, content: `Written by the k8s test while ${this.tag}, number ${i}.` },
      });
      this.requests++;
      if (created.status !== 201) {
        this.failures.push({
          at: new Date().toISOString(),
          what: 'POST /nodes',
          status: created.status,
          text: created.text.slice(0, 200),
        });
        await sleep(200);
        continue;
      }
      this.acknowledged.push(created.body.id);
      const read = await call(this.base, 'GET', `/nodes/${created.body.id}`, { auth: this.auth });
      this.requests++;
      if (read.status !== 200)
        this.failures.push({
          at: new Date().toISOString(),
          what: 'GET /nodes/:id',
          status: read.status,
          text: read.text.slice(0, 200),
        });
    }
  }
}

/** Every acknowledged node still there (GET 200); the ids that are not. */
export async function missingNodes(base: string, auth: string, ids: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const id of ids) {
    let res = await call(base, 'GET', `/nodes/${id}`, { auth });
    for (let attempt = 0; res.status !== 200 && res.status !== 404 && attempt < 20; attempt++) {
      await sleep(500);
      res = await call(base, 'GET', `/nodes/${id}`, { auth });
    }
    if (res.status !== 200) missing.push(`${id} (${res.status})`);
  }
  return missing;
}

/** Polls a search until the node is among the first ten; its rank, or null after `ms`. */
export async function findNode(
  base: string,
  auth: string,
  query: string,
  id: string,
  ms: number,
): Promise<number | null> {
  const until = Date.now() + ms;
  for (;;) {
    const res = await call<{ data: Array<{ id: string }> }>(base, 'GET', `/nodes?${query}&per_page=10`, { auth });
    const rank = res.status === 200 ? res.body.data.findIndex((n) => n.id === id) + 1 : 0;
    if (rank > 0) return rank;
    if (Date.now() > until) return null;
    await sleep(500);
  }
}
