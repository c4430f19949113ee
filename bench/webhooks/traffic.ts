import { request } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { Receipt, Receiver } from './receiver';

export interface Tenant {
  api: string;
  authorization: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A JSON call to the public API; throws on anything but `expect`. */
export async function call<T>(t: Tenant, method: string, path: string, body?: unknown, expect = 200): Promise<T> {
  const res = await fetch(`${t.api}${path}`, {
    method,
    headers: { authorization: t.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** One node made through POST /nodes: when the request left, and when its 201 came back (performance.now()). */
export interface Made {
  nodeId: string;
  sent: number;
  /** The commit time of the bench: the moment the API's 201 answer arrived. */
  committed: number;
}

/** POST /nodes once; the time of the answer is taken when its status line and headers arrive. */
export async function makeNode(t: Tenant, label: string, i: number): Promise<Made> {
  const sent = performance.now();
  const res = await fetch(`${t.api}/nodes`, {
    method: 'POST',
    headers: { authorization: t.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: `Webhook bench ${label} ${i}`,
      content: `Node ${i} of the ${label} phase of the webhook benchmark.`,
    }),
  });
  const committed = performance.now();
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /nodes: ${res.status} ${text.slice(0, 300)}`);
  return { nodeId: (JSON.parse(text) as { id: string }).id, sent, committed };
}

/** `count` nodes from `clients` concurrent clients; a failed POST is retried once, then counted. */
export async function makeNodes(
  t: Tenant,
  label: string,
  count: number,
  clients: number,
  onMade?: () => void,
): Promise<{ made: Made[]; failed: number }> {
  const made: Made[] = [];
  let failed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(clients, count) }, async () => {
      while (next < count) {
        const i = next++;
        const one = await makeNode(t, label, i).catch(() => makeNode(t, label, i).catch(() => null));
        if (one) {
          made.push(one);
          onMade?.();
        } else failed++;
      }
    }),
  );
  return { made, failed };
}

/** The first successful (2xx, verified) receipt of each node id of `ids`, kept current as receipts arrive. */
export function deliveredTracker(receiver: Receiver) {
  const first = new Map<string, Receipt>();
  const seen = (r: Receipt) => {
    if (r.nodeId && r.verified && r.status < 300 && !first.has(r.nodeId)) first.set(r.nodeId, r);
  };
  for (const r of receiver.receipts) seen(r);
  receiver.onReceipt = seen;
  return {
    first,
    /** Resolves when every id has been delivered, or at the deadline; logs progress every `every` ms. */
    async waitFor(ids: string[], deadlineMs: number, log: (s: string) => void, every = 15_000): Promise<boolean> {
      const end = performance.now() + deadlineMs;
      let told = performance.now();
      for (;;) {
        const missing = ids.filter((id) => !first.has(id)).length;
        if (missing === 0) return true;
        if (performance.now() > end) return false;
        if (performance.now() - told > every) {
          told = performance.now();
          log(`  … ${ids.length - missing} of ${ids.length} delivered`);
        }
        await sleep(50);
      }
    },
  };
}

/**
 * The last hop alone: `count` signed POSTs from this process straight to the receiver, one at a
 * time, each on a new connection as the dispatcher makes them (agent: false); ms each.
 */
export async function directPosts(receiver: Receiver, secret: string, count: number): Promise<number[]> {
  const signer = new Webhook(secret);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = `msg_bench_direct_${i}`;
    const body = JSON.stringify({ type: 'node.created', timestamp: new Date().toISOString(), data: { node: null } });
    const at = new Date();
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign(id, at, body),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request(receiver.url, { method: 'POST', agent: false, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end(body);
    });
    out.push(performance.now() - t0);
  }
  return out;
}

/** Tally of receipts: verified / failed signatures, answers, duplicates and strays, for the node ids of a phase. */
export function tally(receipts: Receipt[], ids: Set<string>) {
  const mine = receipts.filter((r) => r.nodeId !== null && ids.has(r.nodeId));
  const ok = mine.filter((r) => r.status < 300);
  const okById = new Map<string, number>();
  for (const r of ok) okById.set(r.webhookId, (okById.get(r.webhookId) ?? 0) + 1);
  const idsByNode = new Map<string, Set<string>>();
  for (const r of mine) idsByNode.set(r.nodeId!, (idsByNode.get(r.nodeId!) ?? new Set()).add(r.webhookId));
  const deliveredNodes = new Set(ok.map((r) => r.nodeId!));
  return {
    requests: mine.length,
    verified: mine.filter((r) => r.verified).length,
    failed_verification: mine.filter((r) => !r.verified).length,
    answered_2xx: ok.length,
    answered_503: mine.filter((r) => r.status === 503).length,
    distinct_webhook_ids_delivered: okById.size,
    /** Successful receipts of a webhook-id after its first (at-least-once redeliveries). */
    duplicates: [...okById.values()].reduce((n, c) => n + c - 1, 0),
    /** Nodes of the phase never delivered. */
    missing: [...ids].filter((id) => !deliveredNodes.has(id)).length,
    /** Nodes whose node.created came under more than one webhook-id (the event itself doubled). */
    nodes_with_several_webhook_ids: [...idsByNode.values()].filter((s) => s.size > 1).length,
    /** Requests whose type is not node.created (the endpoint subscribes to node.created only). */
    other_types: mine.filter((r) => r.type !== 'node.created').length,
  };
}
