/**
 * The chart's Qdrant in the Helm wiring test (helm-wiring.ts), and the check the issue's
 * "done when" asks for: semantic search survives a search pod's restart.
 *
 * The StatefulSet's pod runs as the real Qdrant server through scripts/infra/qdrant.sh, on a
 * port of its own with a storage folder of its own (the pod's PersistentVolumeClaim) and with
 * the container's rendered env (so it requires the API key the chart gives it,
 * QDRANT__SERVICE__API_KEY); the script's own storage, snapshot, host and port settings stand
 * for the pod's mounts and ports. QDRANT_BIN names another binary, as for the script.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fail } from './helm-wiring-env';

const log = (msg: string) => console.log(`helm-wiring: ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface QdrantPod {
  /** The local URL the rendered QDRANT_URL was rewritten to. */
  url: string;
  start(): void;
  stop(): void;
}

/** The Qdrant pod: `qdrant.sh start|stop` with KG_INFRA_DIR as its volume and the rendered env. */
export function qdrantPod(
  root: string,
  dir: string,
  env: Record<string, string>,
  http: number,
  grpc: number,
): QdrantPod {
  const script = path.join(root, 'scripts/infra/qdrant.sh');
  const run = (cmd: 'start' | 'stop') =>
    execFileSync('bash', [script, cmd], {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        ...(process.env['QDRANT_BIN'] ? { QDRANT_BIN: process.env['QDRANT_BIN'] } : {}),
        ...env,
        KG_INFRA_DIR: dir,
        KG_QDRANT_PORT: String(http),
        KG_QDRANT_GRPC_PORT: String(grpc),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  return { url: `http://127.0.0.1:${http}`, start: () => run('start'), stop: () => run('stop') };
}

// ---------------------------------------------------------------------------------------
// The public API, as a client would drive it.
interface Page {
  data: Array<{ id: string }>;
}
async function call<T>(base: string, method: string, url: string, body?: unknown, auth?: string) {
  const res = await fetch(`${base}/api/v1${url}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(auth ? { authorization: auth } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, text };
}

/** A fresh tenant: a magic link by SMTP (the sink's outbox folder), exchanged for an access token. */
async function signIn(base: string, outbox: string): Promise<string> {
  const email = `wiring-restart-${Date.now().toString(36)}@e2e.test`;
  const asked = await call(base, 'POST', '/auth/magic-link', { email });
  if (asked.status !== 202) fail(`magic link for the restart check: ${asked.status} ${asked.text}`);
  for (let i = 0; i < 200; i++) {
    for (const f of readdirSync(outbox).filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
      const mail = JSON.parse(readFileSync(path.join(outbox, f), 'utf8')) as { to: string; token: string };
      if (mail.to !== email) continue;
      const pair = await call<{ access_token: string }>(base, 'POST', '/auth/magic-link/verify', { token: mail.token });
      if (pair.status !== 200) fail(`magic-link verify: ${pair.status} ${pair.text}`);
      return `Bearer ${pair.body.access_token}`;
    }
    await sleep(50);
  }
  return fail(`no sign-in mail to ${email} in ${outbox}`);
}

const NOTE = {
  title: 'Sourdough starter care',
  content: 'Feed the starter with flour and water every day; keep it in a warm spot so the wild yeast stays active.',
};
// Shares no word (nor stem) with the note: only its meaning finds it (mode=semantic).
const PARAPHRASE = 'maintaining a fermented dough culture';

/** Polls semantic search for the node; its rank (1-based) once found, or null when `until` passes. */
async function findByMeaning(base: string, auth: string, id: string, until: number): Promise<number | null> {
  const url = `/nodes?mode=semantic&per_page=10&query=${encodeURIComponent(PARAPHRASE)}`;
  for (;;) {
    const res = await call<Page>(base, 'GET', url, undefined, auth);
    const rank = res.status === 200 ? res.body.data.findIndex((n) => n.id === id) + 1 : 0;
    if (rank > 0) return rank;
    if (Date.now() > until) {
      log(`last semantic answer: ${res.status} ${res.text.slice(0, 300)}`);
      return null;
    }
    await sleep(200);
  }
}

/** Points in the search service's collections, read from Qdrant with the chart's API key. */
async function qdrantPoints(url: string, apiKey: string): Promise<Record<string, number>> {
  const get = async <T>(p: string) => {
    // A keep-alive socket to a Qdrant that has just restarted fails once: try a few times.
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${url}${p}`, {
        headers: { 'api-key': apiKey },
        signal: AbortSignal.timeout(10_000),
      }).catch((err: unknown) => {
        if (attempt >= 5) throw err;
        return null;
      });
      if (!res) {
        await sleep(200);
        continue;
      }
      if (!res.ok) fail(`Qdrant ${p}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { result: T }).result;
    }
  };
  const { collections } = await get<{ collections: Array<{ name: string }> }>('/collections');
  const out: Record<string, number> = {};
  for (const { name } of collections.filter((c) => c.name.startsWith('kg_nodes_')))
    out[name] = (await get<{ points_count: number }>(`/collections/${name}`)).points_count;
  return out;
}

export interface RestartCheck {
  gateway: string;
  outbox: string;
  /**
   * Kills the search process (SIGKILL) and starts a new one with a fresh /tmp, as a new pod;
   * resolves once ready, with a function that reads what the new process has logged so far.
   */
  restartSearch(): Promise<() => string>;
  /** The chart's Qdrant, when it runs one: restarted on its storage too, and its points counted. */
  qdrant?: { pod: QdrantPod; apiKey: string };
}

/**
 * Index a node, find it by meaning, restart the search pod (and the Qdrant pod on its
 * volume), find it again: the vectors live in Qdrant, not in a search pod.
 */
export async function semanticSurvivesRestart(c: RestartCheck) {
  const auth = await signIn(c.gateway, c.outbox);
  const made = await call<{ id: string }>(c.gateway, 'POST', '/nodes', NOTE, auth);
  if (made.status !== 201) fail(`POST /nodes for the restart check: ${made.status} ${made.text}`);
  const id = made.body.id;
  const first = await findByMeaning(c.gateway, auth, id, Date.now() + 60_000);
  if (first === null) fail(`node ${id} never found by semantic search ("${PARAPHRASE}")`);
  const before = c.qdrant ? await qdrantPoints(c.qdrant.pod.url, c.qdrant.apiKey) : {};
  if (c.qdrant && !Object.values(before).some((n) => n > 0)) fail(`no point in Qdrant's kg_nodes_* collections`);
  log(`node ${id} found by meaning at rank ${first}; Qdrant holds ${JSON.stringify(before)}`);

  const restartedLog = await c.restartSearch();
  const again = await findByMeaning(c.gateway, auth, id, Date.now() + 30_000);
  if (again === null) fail(`after the search pod's restart, node ${id} is no longer found by semantic search`);
  // Found from the vectors kept, not embedded again: a search process that finds its collection
  // missing says so (services/search/src/collection-refill.ts) and re-embeds every node, which
  // takes hours at scale and leaves semantic search incomplete meanwhile.
  if (/collection was missing and is made anew/.test(restartedLog()))
    fail(
      `the vectors did not survive the search pod's restart: the new process made its collection anew and embeds every node again`,
    );
  log(`after the search pod's restart (SIGKILL, fresh /tmp): found at rank ${again}`);

  if (c.qdrant) {
    c.qdrant.pod.stop();
    c.qdrant.pod.start();
    // Every point is still there (the e2e pass's last nodes may still be arriving: never fewer).
    const after = await qdrantPoints(c.qdrant.pod.url, c.qdrant.apiKey);
    const lost = Object.entries(before).filter(([name, n]) => (after[name] ?? 0) < n);
    if (lost.length)
      fail(`Qdrant restarted on its volume holds ${JSON.stringify(after)}, fewer than ${JSON.stringify(before)}`);
    const third = await findByMeaning(c.gateway, auth, id, Date.now() + 30_000);
    if (third === null) fail(`after the Qdrant pod's restart, node ${id} is no longer found by semantic search`);
    log(`after the Qdrant pod's restart on its volume: ${JSON.stringify(after)}, found at rank ${third}`);
  }
}
