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

  it('reads every query as words: URLs, e-mail, quotes, backslashes and any script never fail', async () => {
    const t = identity(52);
    const api = h.as(t);
    const node = await api.nodes.create({
      title: "O'Reilly café notes",
      content: 'Mail ops@example.com, see https://example.com/a?b=c and C:\\temp\\x. 日本語 ✓',
    });
    const queries = [
      "o'reilly",
      'ops@example.com',
      'https://example.com/a?b=c',
      'C:\\temp\\x',
      '\\',
      "'''",
      'café 日本語 ✓',
      'e-mail — “smart quotes” «guillemets»',
    ];
    for (const q of queries) {
      const page = await keywordSearch(h.database.db, t.tenantId, q, {}, 10, 0);
      if (q.replace(/[^a-z0-9]/gi, '').length > 2)
        expect(
          page.hits.map((x) => x.id),
          q,
        ).toContain(node.id);
    }
  });
});
