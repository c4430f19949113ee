import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createNode, expectUnauthorized, newTenant, type Session } from './support/client';

let s: Session;
let other: Session;
beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('events'), newTenant('events-other')]);
});

interface Sse {
  event: string;
  id: string;
  data: { id: string; type: string; version: number; data: Record<string, unknown> };
}

/** Opens GET /events and collects its events until closed. */
async function open(auth: string) {
  const ctrl = new AbortController();
  const res = await fetch(`${inject('baseUrl')}/api/v1/events`, {
    headers: { authorization: auth, accept: 'text/event-stream' },
    signal: ctrl.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: Sse[] = [];
  let buffer = '';
  const reader = res.body!.getReader();
  const pump = (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((l) => l && !l.startsWith(':'))
            .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
        );
        const [event, id, data] = [fields['event'], fields['id'], fields['data']];
        if (event && id && data) events.push({ event, id, data: JSON.parse(data) });
      }
    }
  })();
  return {
    events,
    async until(pred: (e: Sse) => boolean, ms = 10_000): Promise<Sse> {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const hit = events.find(pred);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no matching event in ${ms} ms; got ${events.map((e) => e.event).join(', ')}`);
    },
    async close() {
      ctrl.abort();
      await pump;
    },
  };
}

describe('GET /events (server-sent events)', () => {
  it("streams the tenant's capture status changes and node changes, never another tenant's", async () => {
    const mine = await open(s.bearer);
    const theirs = await open(other.bearer);
    try {
      const created = await api('POST', '/captures', {
        auth: s.bearer,
        body: { title: 'live', content_type: 'note', source: 'api', raw_content: 'streamed' },
      });
      expect(created.status).toBe(201);
      const e = await mine.until((x) => x.event === 'capture.changed' && x.data.data['capture_id'] === created.body.id);
      expect(e.id).toMatch(/^evt_/);
      expect(e.data).toMatchObject({ type: 'capture.changed', data: { status: 'pending', previous_status: null } });
      expect(e.data).not.toHaveProperty('tenant_id');
      await api('POST', `/captures/${created.body.id}/archive`, { auth: s.bearer });
      const archived = await mine.until(
        (x) => x.data.data['capture_id'] === created.body.id && x.data.data['status'] === 'archived',
      );
      expect(archived.data.version).toBeGreaterThan(e.data.version);
      const node = await createNode(s.bearer, { title: 'seen live' });
      const n = await mine.until(
        (x) => x.event === 'node.created' && (x.data.data['node'] as { id: string }).id === node.id,
      );
      expect(n.data.data['node']).toMatchObject({ title: 'seen live' });
      await new Promise((r) => setTimeout(r, 300));
      expect(theirs.events.filter((x) => JSON.stringify(x).includes(created.body.id))).toEqual([]);
      expect(theirs.events.filter((x) => JSON.stringify(x).includes(node.id))).toEqual([]);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  it('needs credentials like every request', async () => {
    expectUnauthorized(await api('GET', '/events'));
  });
});
