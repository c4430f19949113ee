import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { api, createNode, expectProblem, newTenant, type Session } from './support/client';

describe('tenant isolation', () => {
  it("answers 404 on every route for another tenant's node, changes nothing, and never lists it", async () => {
    const a = await newTenant('iso-a');
    const b = await newTenant('iso-b');
    const n = await createNode(a.bearer, { title: 'Secret plans', content: 'tenant a only', tags: ['private'] });
    const sibling = await createNode(a.bearer, { title: 'Sibling' });
    await api('PATCH', `/nodes/${n.id}/links`, {
      auth: a.bearer,
      body: { links: [{ target_id: sibling.id, type: 'related' }] },
    });
    const partner = await createNode(b.bearer, { title: 'B node' });
    const { body: key } = await api('POST', '/auth/api-keys', { auth: b.bearer, body: { name: 'b key' } });
    for (const auth of [b.bearer, `ApiKey ${key.key}`]) {
      expectProblem(await api('GET', `/nodes/${n.id}`, { auth }), 404);
      expectProblem(await api('PATCH', `/nodes/${n.id}`, { auth, body: { title: 'stolen' } }), 404);
      expectProblem(await api('DELETE', `/nodes/${n.id}`, { auth }), 404);
      expectProblem(await api('PATCH', `/nodes/${n.id}/links`, { auth, body: { links: [] } }), 404);
      expectProblem(await api('GET', `/nodes/${n.id}/related?limit=5`, { auth }), 404);
      expectProblem(await api('GET', `/graph/seed?seed=${n.id}`, { auth }), 404);
      expectProblem(await api('GET', `/graph/neighbors/${n.id}`, { auth }), 404);
      const p = expectProblem(
        await api('PATCH', `/nodes/${partner.id}/links`, {
          auth,
          body: { links: [{ target_id: n.id, type: 'related' }] },
        }),
        400,
      );
      expect(p.errors?.[0]?.path).toBe('links.0.target_id');
      for (const q of ['?query=secret', '?query=private', '?per_page=100', '?status=raw']) {
        const listed = await api<{ data: Array<{ id: string }>; total: number }>('GET', `/nodes${q}`, { auth });
        expect(
          listed.body.data.map((x) => x.id),
          q,
        ).not.toContain(n.id);
      }
      expect((await api('GET', '/nodes', { auth })).body).toMatchObject({ total: 1, data: [{ id: partner.id }] });
      expect((await api('GET', '/graph/seed', { auth })).body.nodes.map((x: { id: string }) => x.id)).toEqual([
        partner.id,
      ]);
      expect((await api('GET', '/graph-health', { auth })).body).toMatchObject({ total_nodes: 1, total_links: 0 });
    }
    // The owner's data is untouched by every attempt.
    expect((await api('GET', `/nodes/${n.id}`, { auth: a.bearer })).body).toEqual(n);
    expect(
      (await api('GET', `/nodes/${n.id}/related?limit=5`, { auth: a.bearer })).body.nodes.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([sibling.id]);
    expect((await api('GET', `/nodes/${partner.id}/related?limit=5`, { auth: b.bearer })).body).toEqual({ nodes: [] });
  });

  it('keeps interleaved writes of two tenants apart (property)', async () => {
    const tenants: [Session, Session] = [await newTenant('iso-p0'), await newTenant('iso-p1')];
    const owned: [string[], string[]] = [[], []];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            who: fc.constantFrom(0, 1),
            title: fc.string({ minLength: 1, maxLength: 12 }).filter((t) => t.trim().length > 0),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (writes) => {
          for (const { who, title } of writes) {
            const node = await createNode(tenants[who].bearer, { title });
            expect(node.title).toBe(title.trim());
            owned[who].push(node.id);
          }
          for (const who of [0, 1] as const) {
            const res = await api<{ data: Array<{ id: string }>; total: number }>('GET', '/nodes?per_page=100', {
              auth: tenants[who].bearer,
            });
            expect(res.body.total).toBe(owned[who].length);
            expect(res.body.data.map((x) => x.id).sort()).toEqual([...owned[who]].sort());
            const foreign = owned[1 - who]!.at(-1);
            if (foreign)
              expect((await api('GET', `/nodes/${foreign}`, { auth: tenants[who].bearer })).status).toBe(404);
          }
        },
      ),
      { numRuns: 10 },
    );
  }, 60_000);
});
