import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook, type WebhookAttempt, WebhookCreated } from '@kg/contracts';
import {
  api,
  conforms,
  createNode,
  expectProblem,
  expectUnauthorized,
  newTenant,
  type Session,
} from './support/client';

/** A receiver on loopback (the server under test allow-lists 127.0.0.1 for webhooks). */
function receiver() {
  const got: Array<{ path: string; headers: Record<string, string>; body: string }> = [];
  let answer: (res: http.ServerResponse) => void = (res) => res.writeHead(204).end();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers as Record<string, string>, body });
      answer(res);
    });
  });
  return {
    got,
    answer: (f: typeof answer) => (answer = f),
    url: (p = '/hook') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${p}`,
    listen: (port = 0) => new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r())),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function eventually<T>(check: () => Promise<T | false | null | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

let s: Session;
const hook = receiver();
beforeAll(async () => {
  s = await newTenant('webhooks');
  await hook.listen();
});
afterAll(() => hook.close());

const create = async (body: Record<string, unknown>) => {
  const res = await api<WebhookCreated>('POST', '/webhooks', { auth: s.bearer, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return conforms(WebhookCreated, res.body);
};
const attempts = async (id: string) =>
  (await api<{ data: WebhookAttempt[] }>('GET', `/webhooks/${id}/attempts`, { auth: s.bearer })).body.data;
const endpoint = async (id: string) =>
  conforms(Webhook, (await api('GET', `/webhooks/${id}`, { auth: s.bearer })).body);

describe('webhooks: hostile input', () => {
  it('refuses targets that are not public http(s) URLs, with a problem naming the field', async () => {
    for (const url of [
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/hook',
      'http://192.168.1.1/hook',
      'http://0.0.0.0/hook',
      'http://user:pass@127.0.0.1/hook',
      'javascript:alert(1)',
      'file:///etc/passwd',
      `https://example.com/${'a'.repeat(3000)}`,
    ]) {
      const res = await api('POST', '/webhooks', { auth: s.bearer, body: { url, event_types: ['node.created'] } });
      const problem = expectProblem(res, 400);
      expect(
        problem.errors?.map((e) => e.path),
        url,
      ).toContain('url');
    }
    for (const body of [
      { url: hook.url(), event_types: ['node.exploded'] },
      { url: hook.url(), event_types: [] },
      { url: hook.url(), event_types: ['node.created'], secret: 'whsec_mine' },
      { url: hook.url() },
    ])
      expectProblem(await api('POST', '/webhooks', { auth: s.bearer, body }), 400);
    expect((await api<{ data: unknown[] }>('GET', '/webhooks', { auth: s.bearer })).body.data).toEqual([]);
  });

  it("answers 404 for another tenant's endpoint and 401 without credentials", async () => {
    const mine = await create({ url: hook.url(), event_types: ['node.created'] });
    const other = await newTenant('webhooks-other');
    for (const [method, path, body] of [
      ['GET', `/webhooks/${mine.id}`],
      ['PATCH', `/webhooks/${mine.id}`, { enabled: false }],
      ['DELETE', `/webhooks/${mine.id}`],
      ['POST', `/webhooks/${mine.id}/test`],
      ['POST', `/webhooks/${mine.id}/rotate-secret`, {}],
      ['GET', `/webhooks/${mine.id}/attempts`],
    ] as const) {
      expectProblem(await api(method, path, { auth: other.bearer, body }), 404);
      expectUnauthorized(await api(method, path, { body }));
    }
    expect((await endpoint(mine.id)).enabled).toBe(true);
    expect((await api('DELETE', `/webhooks/${mine.id}`, { auth: s.bearer })).status).toBe(204);
    expectProblem(await api('GET', `/webhooks/${mine.id}`, { auth: s.bearer }), 404);
  });
});

describe('webhooks: delivery', () => {
  it('delivers node events signed per Standard Webhooks; the secret is shown only at creation', async () => {
    const created = await create({ url: hook.url('/nodes'), event_types: ['node.created', 'node.deleted'] });
    expect(created.secret).toMatch(/^whsec_/);
    expect(await endpoint(created.id)).not.toHaveProperty('secret');
    const listed = (await api<{ data: object[] }>('GET', '/webhooks', { auth: s.bearer })).body.data;
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const node = await createNode(s.bearer, { title: 'Webhook subject', content: 'Delivered to the world.' });
    await api('PATCH', `/nodes/${node.id}`, { auth: s.bearer, body: { title: 'Renamed' } }); // node.updated: not subscribed
    expect((await api('DELETE', `/nodes/${node.id}`, { auth: s.bearer })).status).toBe(204);
    const mine = () => hook.got.filter((g) => g.path === '/nodes' && g.body.includes(node.id));
    await eventually(async () => mine().length >= 2);
    const verifier = new Verifier(created.secret);
    const payloads = mine().map(
      (g) => verifier.verify(g.body, g.headers) as { type: string; data: Record<string, unknown> },
    );
    expect(payloads.map((p) => p.type).sort()).toEqual(['node.created', 'node.deleted']);
    expect(payloads.find((p) => p.type === 'node.created')!.data).toMatchObject({ node: { id: node.id } });
    // Tampering is detected by the receiver's library.
    const [first] = mine();
    expect(() => verifier.verify(first!.body.replace('Webhook subject', 'Forged'), first!.headers)).toThrow();
    await eventually(async () => (await attempts(created.id)).length >= 2);
    for (const a of await attempts(created.id)) expect(a).toMatchObject({ outcome: 'succeeded', http_status: 204 });
    await api('DELETE', `/webhooks/${created.id}`, { auth: s.bearer });
  });

  it('tells PARA item changes (para.item.changed) to the endpoints subscribed to them only', async () => {
    const para = await create({ url: hook.url('/para'), event_types: ['para.item.changed'] });
    const nodesOnly = await create({ url: hook.url('/nodes-only'), event_types: ['node.created'] });
    const item = await api<{ id: string }>('POST', '/para', {
      auth: s.bearer,
      body: { category: 'projects', label: 'Webhook launch' },
    });
    expect(item.status, JSON.stringify(item.body)).toBe(201);
    const got = await eventually(async () => hook.got.find((g) => g.path === '/para' && g.body.includes(item.body.id)));
    expect(new Verifier(para.secret).verify(got.body, got.headers)).toMatchObject({
      type: 'para.item.changed',
      data: { change: 'created', item_id: item.body.id, item: { id: item.body.id } },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(hook.got.filter((g) => g.body.includes(item.body.id))).toHaveLength(1);
    expect(await attempts(nodesOnly.id)).toEqual([]);
    for (const id of [para.id, nodesOnly.id]) await api('DELETE', `/webhooks/${id}`, { auth: s.bearer });
  });

  it('holds deliveries while the receiver is down and delivers each once when it is back', async () => {
    const down = receiver();
    await down.listen();
    const url = down.url('/down');
    const port = Number(new URL(url).port);
    await down.close(); // connection refused from now on
    const created = await create({ url, event_types: ['node.created'] });
    const nodes = await Promise.all([1, 2, 3].map((i) => createNode(s.bearer, { title: `Outage ${i}`, content: 'x' })));
    await eventually(async () => (await attempts(created.id)).filter((a) => a.outcome === 'failed').length >= 3);
    const failed = await attempts(created.id);
    expect(failed[0]).toMatchObject({
      outcome: 'failed',
      http_status: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect((await endpoint(created.id)).failing_since).not.toBeNull();

    const back = receiver();
    await back.listen(port);
    try {
      await eventually(async () => (await endpoint(created.id)).pending_deliveries === 0, 30_000);
      const ids = back.got.map((g) => g.headers['webhook-id']);
      expect(ids).toHaveLength(3);
      expect(new Set(ids).size).toBe(3);
      const verifier = new Verifier(created.secret);
      const delivered = back.got.map(
        (g) => (verifier.verify(g.body, g.headers) as { data: { node: { id: string } } }).data.node.id,
      );
      expect(delivered.sort()).toEqual(nodes.map((n) => n.id).sort());
      expect((await endpoint(created.id)).failing_since).toBeNull();
    } finally {
      await back.close();
    }
    await api('DELETE', `/webhooks/${created.id}`, { auth: s.bearer });
  });

  it('cuts a receiver that hangs after 10 s, does not follow a redirect, and disables on 410', async () => {
    const created = await create({ url: hook.url('/hostile'), event_types: ['node.created'] });
    hook.answer(() => undefined); // accepts the request, never answers
    const sent = await api('POST', `/webhooks/${created.id}/test`, { auth: s.bearer });
    expect(sent.status).toBe(202);
    const hung = await eventually(async () => (await attempts(created.id))[0], 25_000);
    expect(hung).toMatchObject({ outcome: 'failed', http_status: null, error: 'no answer within 10000 ms' });
    expect(hung.latency_ms).toBeGreaterThanOrEqual(9_500);
    expect(hung.latency_ms).toBeLessThan(12_000);

    hook.answer((res) => res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data' }).end());
    await eventually(async () => (await attempts(created.id))[0]?.http_status === 307);
    expect((await attempts(created.id))[0]!.error).toMatch(/redirects are not followed/);

    hook.answer((res) => res.writeHead(410).end());
    await eventually(async () => (await endpoint(created.id)).disabled_reason === 'gone', 20_000);
    expect(await endpoint(created.id)).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    hook.answer((res) => res.writeHead(204).end());
    const reenabled = await api('PATCH', `/webhooks/${created.id}`, { auth: s.bearer, body: { enabled: true } });
    expect(reenabled.body).toMatchObject({ enabled: true, disabled_reason: null });
    await eventually(async () => (await attempts(created.id))[0]?.outcome === 'succeeded');
    await api('DELETE', `/webhooks/${created.id}`, { auth: s.bearer });
  }, 60_000);

  it('signs with the old and the new secret during a rotation, and tells capture.processed', async () => {
    const created = await create({ url: hook.url('/rotate'), event_types: ['capture.processed'] });
    const rotated = await api<{ secret: string; previous_secret_expires_at: string }>(
      'POST',
      `/webhooks/${created.id}/rotate-secret`,
      { auth: s.bearer, body: {} },
    );
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const capture = await api<{ id: string }>('POST', '/captures', {
      auth: s.bearer,
      body: { title: 'Webhook note', content_type: 'note', source: 'api', raw_content: 'A note about herons.' },
    });
    expect(capture.status).toBe(201);
    const got = await eventually(
      async () => hook.got.find((g) => g.path === '/rotate' && g.body.includes(capture.body.id)),
      60_000,
    );
    for (const secret of [created.secret, rotated.body.secret])
      expect(new Verifier(secret).verify(got.body, got.headers)).toMatchObject({
        type: 'capture.processed',
        data: { capture_id: capture.body.id, status: 'processed' },
      });
    await api('DELETE', `/webhooks/${created.id}`, { auth: s.bearer });
  }, 90_000);
});
