import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphHarness, HARNESS_TIMEOUT, identity, type GraphHarness } from '../testing';
import { keywordSearch } from '../store/keyword';

let h: GraphHarness;
beforeAll(async () => {
  h = await graphHarness();
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

describe('keyword search (BM25)', () => {
  it('matches any word and ranks rare words above common ones', async () => {
    const t = identity(51);
    const api = h.as(t);
    const rare = await api.nodes.create({ title: 'Notes', content: 'The zymurgy of a library.' });
    const common = [];
    for (let i = 0; i < 5; i++) common.push(await api.nodes.create({ title: `Library ${i}`, content: 'A library.' }));
    const page = await keywordSearch(h.database.db, t.tenantId, 'library zymurgy', {}, 10, 0);
    expect(page.total).toBe(6);
    expect(page.hits[0]!.id).toBe(rare.id);
  });
});
