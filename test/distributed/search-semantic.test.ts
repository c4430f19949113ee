import { describe, expect, it } from 'vitest';
import { api, createNode, newTenant } from '../e2e/support/client';
import { waitIndexed } from '../e2e/support/search';

type Page = { data: Array<{ id: string }>; total: number };

describe('semantic search across processes (graph → Kafka → search → graph over tRPC)', () => {
  it('indexes a node written through the gateway and finds it by meaning, per tenant, with suggestions', async () => {
    const [s, other] = await Promise.all([newTenant('dsem'), newTenant('dsem-other')]);
    const node = await createNode(s.bearer, {
      title: 'Sourdough starter care',
      content:
        'Feed the starter with flour and water every day; keep it in a warm spot so the wild yeast stays active.',
    });
    await waitIndexed(s.bearer, node.id, 'sourdough starter', '', 60_000);
    const q = encodeURIComponent('maintaining a fermented dough culture');
    for (const mode of ['semantic', 'hybrid']) {
      const page = (await api<Page>('GET', `/nodes?mode=${mode}&query=${q}`, { auth: s.bearer })).body;
      expect(page.data[0]?.id, mode).toBe(node.id);
      expect((await api<Page>('GET', `/nodes?mode=${mode}&query=${q}`, { auth: other.bearer })).body.data).toEqual([]);
    }
    expect((await api<Page>('GET', `/nodes?mode=keyword&query=${q}`, { auth: s.bearer })).body.data).toEqual([]);
    const suggestions = await api('GET', `/links/suggestions?text=${encodeURIComponent('bread culture feeding')}`, {
      auth: s.bearer,
    });
    expect(suggestions.body.suggestions[0]).toMatchObject({ node_id: node.id, title: 'Sourdough starter care' });
    const context = await api('POST', '/context', { auth: s.bearer, body: {} });
    expect(context.body.nodes.map((n: { id: string }) => n.id)).toEqual([node.id]);
  });
});
