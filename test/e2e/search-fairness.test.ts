import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodePage, type TokenPair } from '@kg/contracts';
import { conforms, expectProblem, remember, type Res } from './support/client';
import { magicLinkToken, startOwnServer, type OwnServer } from './support/own-server';

/**
 * Issue 21, item 5: one tenant's flood of semantic searches must not queue another tenant's
 * search behind it. This suite's own server lets each tenant have 2 queries waiting for the
 * embedder (EMBED_QUEUE_PER_TENANT; the default is 32), and lifts the gateway's per-minute
 * search limits so that every 429 here comes from the embedder's queue.
 */
const QUEUE_CAP = 2;
const FLOOD = 64;
/** Floods sent at most before one must have been refused in part. */
const ROUNDS = 10;

let server: OwnServer;
let alice: string;
let bob: string;
let bobNode: string;

async function call<T = unknown>(method: string, path: string, auth?: string, body?: unknown): Promise<Res<T>> {
  const res = await fetch(`${server.apiUrl}${path}`, {
    method,
    headers: {
      ...(auth ? { authorization: auth } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

async function signIn(tag: string): Promise<string> {
  const email = `${tag}-${Date.now().toString(36)}@fairness.e2e.test`;
  const token = await magicLinkToken(server, email);
  remember(token);
  const res = await call<TokenPair>('POST', '/auth/magic-link/verify', undefined, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  remember(res.body.access_token, res.body.refresh_token);
  return `Bearer ${res.body.access_token}`;
}

type Page = { data: Array<{ id: string }> };
const semantic = (auth: string, query: string) =>
  call<Page>('GET', `/nodes?mode=semantic&per_page=10&query=${encodeURIComponent(query)}`, auth);

beforeAll(async () => {
  server = await startOwnServer({
    EMBED_QUEUE_PER_TENANT: String(QUEUE_CAP),
    SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
    SEARCH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE: '100000',
  });
  [alice, bob] = await Promise.all([signIn('flooder'), signIn('neighbour')]);
  const created = await call<{ id: string }>('POST', '/nodes', bob, {
    title: 'Sourdough starter care',
    content: 'Feed the starter with flour and water every day; keep it in a warm spot so the wild yeast stays active.',
  });
  expect(created.status).toBe(201);
  bobNode = created.body.id;
  const until = Date.now() + 60_000;
  while (!(await semantic(bob, 'sourdough starter')).body.data?.some((n) => n.id === bobNode)) {
    if (Date.now() > until) throw new Error('the neighbour’s node was not indexed within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);
afterAll(() => server?.stop());

describe('semantic search while another tenant floods it', () => {
  it('answers the flooding tenant 429 beyond its queue while the other tenant’s search answers 200', async () => {
    // How many of A's queries wait at one moment depends on how fast this machine embeds (a quiet
    // one can keep up with a whole flood), so floods go in rounds until one outruns the model; with
    // no cap on the queue (the code before it) no round is ever refused.
    const answers: Array<Res<Page>> = [];
    for (let round = 1; round <= ROUNDS && !answers.some((a) => a.status === 429); round++) {
      // Distinct texts, so no answer comes from the embedding cache.
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        semantic(alice, `flood round ${round} query number ${i} about bread`),
      );
      const neighbour = await semantic(bob, `looking after a sourdough culture, take ${round}`);
      answers.push(...(await Promise.all(flood)));

      expect(neighbour.status, JSON.stringify(neighbour.body)).toBe(200);
      expect(conforms(NodePage, neighbour.body).data.map((n) => n.id)).toContain(bobNode);
    }

    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    expect([...byStatus.keys()].sort()).toEqual([200, 429]);
    // At least one query ran and QUEUE_CAP waited; the rest were refused rather than queued.
    expect(byStatus.get(200)!).toBeGreaterThanOrEqual(1 + QUEUE_CAP);
    for (const refused of answers.filter((a) => a.status === 429)) {
      const problem = expectProblem(refused, 429);
      expect(problem.detail).toBe(
        `Too many of this tenant's searches are waiting for the embedder (at most ${QUEUE_CAP}); retry shortly`,
      );
      expect(refused.headers.get('retry-after')).toBe('1');
    }
    for (const ok of answers.filter((a) => a.status === 200)) conforms(NodePage, ok.body);
  }, 120_000);

  it('serves the flooding tenant again once its queue has room', async () => {
    const res = await semantic(alice, 'a single calm question');
    expect(res.status).toBe(200);
    expect(conforms(NodePage, res.body).data).toEqual([]);
  });
});
