import { describe, expect, it } from 'vitest';
import { api, createNode, expectProblem, newTenant } from './support/client';

describe('tenant isolation', () => {
  it("answers 404 on every route for another tenant's node and never lists it", async () => {
    const a = await newTenant('iso-a');
    const b = await newTenant('iso-b');
    const n = await createNode(a.bearer, { title: 'Secret plans', content: 'tenant a only' });
    const partner = await createNode(b.bearer, { title: 'B node' });
    expectProblem(await api('GET', `/nodes/${n.id}`, { auth: b.bearer }), 404);
    expectProblem(await api('PATCH', `/nodes/${n.id}`, { auth: b.bearer, body: { title: 'stolen' } }), 404);
    expectProblem(await api('DELETE', `/nodes/${n.id}`, { auth: b.bearer }), 404);
    expectProblem(await api('PATCH', `/nodes/${n.id}/links`, { auth: b.bearer, body: { links: [] } }), 404);
    expectProblem(await api('GET', `/nodes/${n.id}/related?limit=5`, { auth: b.bearer }), 404);
    expectProblem(
      await api('PATCH', `/nodes/${partner.id}/links`, {
        auth: b.bearer,
        body: { links: [{ target_id: n.id, type: 'related' }] },
      }),
      400,
    );
    const listed = await api<{ data: unknown[]; total: number }>('GET', '/nodes?query=secret', { auth: b.bearer });
    expect(listed.body.total).toBe(0);
    expect((await api('GET', `/nodes/${n.id}`, { auth: a.bearer })).body).toMatchObject({ title: 'Secret plans' });
  });
});
