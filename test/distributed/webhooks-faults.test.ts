import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { api, createNode, newTenant } from '../e2e/support/client';
import { control, eventually } from './support/cluster-api';

const NODES = 40;

describe('webhook delivery faults (distributed)', () => {
  afterAll(() => control('start', 'captures'));

  it(`kill -9 of captures mid-batch loses none of ${NODES} deliveries; each arrives signed, with its webhook-id`, async () => {
    const s = await newTenant('webhooks-faults');
    // The receiver holds its answers until the kill: the deliveries in flight then were sent
    // but never acknowledged, and the rest are still queued.
    const got: Array<{ headers: Record<string, string>; body: string }> = [];
    let hold = true;
    const held: http.ServerResponse[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers as Record<string, string>, body });
        if (hold) held.push(res);
        else res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await api<{ id: string; secret: string }>('POST', '/webhooks', {
        auth: s.bearer,
        body: { url, event_types: ['node.created'] },
      });
      expect(created.status).toBe(201);

      const nodes: string[] = [];
      for (let i = 0; i < NODES; i++)
        nodes.push((await createNode(s.bearer, { title: `Delivered ${i}`, content: 'Kept through a crash.' })).id);
      // Attempts in flight (at most four to one endpoint), unanswered; the others queued.
      await eventually(async () => got.length >= 2, 60_000, 20);
      await control('stop', 'captures', { signal: 'SIGKILL' });
      const inFlight = new Set(got.map((g) => g.headers['webhook-id']!));
      hold = false;
      for (const res of held) res.destroy();
      await control('start', 'captures');

      // Claims held by the killed process expire (WEBHOOK_LEASE_MS, 12 s here) and go out again.
      const verifier = new Verifier(created.body.secret);
      const delivered = () =>
        new Set(
          got.map((g) => (verifier.verify(g.body, g.headers) as { data: { node: { id: string } } }).data.node.id),
        );
      await eventually(async () => delivered().size === NODES, 120_000, 250);
      // Every delivery acknowledged: those in flight at the kill too, once their claims expired.
      await eventually(
        async () =>
          (await api<{ pending_deliveries: number }>('GET', `/webhooks/${created.body.id}`, { auth: s.bearer })).body
            .pending_deliveries === 0,
        60_000,
        250,
      );
      expect([...delivered()].sort()).toEqual([...nodes].sort());
      // At least once: a delivery in flight at the kill may arrive twice, always with the same webhook-id.
      const ids = got.map((g) => g.headers['webhook-id']!);
      const byNode = new Map<string, Set<string>>();
      for (const g of got) {
        const node = (JSON.parse(g.body) as { data: { node: { id: string } } }).data.node.id;
        byNode.set(node, (byNode.get(node) ?? new Set()).add(g.headers['webhook-id']!));
      }
      for (const [node, seen] of byNode) expect(seen.size, node).toBe(1);
      // The attempts in flight at the kill were never acknowledged: sent again, same webhook-id.
      for (const id of inFlight) expect(ids.filter((x) => x === id).length, id).toBeGreaterThanOrEqual(2);
      const repeated = ids.length - new Set(ids).size;
      console.log(
        `webhooks-faults: ${got.length} requests for ${NODES} events, ${inFlight.size} in flight at the kill, ${repeated} repeated`,
      );
    } finally {
      await new Promise<void>((r) => {
        receiver.closeAllConnections();
        receiver.close(() => r());
      });
    }
  }, 240_000);
});
