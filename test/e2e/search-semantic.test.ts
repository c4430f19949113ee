import { beforeAll, describe, expect, it } from 'vitest';
import { LinkSuggestions, NodePage, type ParaItem } from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, UNKNOWN_NODE, type Session } from './support/client';
import { waitIndexed } from './support/search';

/** GET /nodes with mode semantic and hybrid (the default), and GET /links/suggestions. */
let s: Session;
let other: Session;
let project: ParaItem;
const ids: Record<string, string> = {};

type Page = { data: Array<{ id: string }>; total: number; page: number; per_page: number };
const list = (q: string, mode: string | null, extra = '', auth = s.bearer) =>
  api<Page>('GET', `/nodes?query=${encodeURIComponent(q)}${mode ? `&mode=${mode}` : ''}${extra}`, { auth });
const idsOf = (p: Page) => p.data.map((n) => n.id);

const BREAD = {
  title: 'Sourdough starter care',
  content: 'Feed the starter with flour and water every day; keep it in a warm spot so the wild yeast stays active.',
};
// Shares no word (nor stem) with BREAD: only meaning connects them.
const PARAPHRASE = 'maintaining a fermented dough culture';

beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('sem'), newTenant('sem-other')]);
  project = (await api<ParaItem>('POST', '/para', { auth: s.bearer, body: { category: 'projects', label: 'Taxes' } }))
    .body;
  ids['bread'] = (await createNode(s.bearer, BREAD)).id;
  ids['bike'] = (
    await createNode(s.bearer, {
      title: 'Fixing a flat tyre',
      content: 'Remove the wheel, find the puncture, patch the inner tube and pump it back up.',
    })
  ).id;
  ids['tax'] = (
    await createNode(s.bearer, {
      title: 'Quarterly tax filing',
      content: 'Collect receipts and invoices, compute the VAT owed, and submit the return before the deadline.',
      para_item_ids: [project.id],
    })
  ).id;
  ids['otherBread'] = (await createNode(other.bearer, BREAD)).id;
  await waitIndexed(s.bearer, ids['bread'], BREAD.title);
  await waitIndexed(s.bearer, ids['bike'], 'flat tyre');
  await waitIndexed(s.bearer, ids['tax'], 'tax filing');
  await waitIndexed(other.bearer, ids['otherBread'], BREAD.title);
}, 120_000);

describe('semantic and hybrid search', () => {
  it('answers the page envelope in every mode, hybrid by default', async () => {
    for (const mode of ['keyword', 'semantic', 'hybrid', null]) {
      const res = await list('sourdough starter', mode, '&per_page=2');
      expect(res.status, String(mode)).toBe(200);
      const page = conforms(NodePage, res.body);
      expect(page).toMatchObject({ page: 1, per_page: 2 });
      expect(idsOf(page)[0], String(mode)).toBe(ids['bread']);
      expect(page.total).toBeGreaterThanOrEqual(1);
    }
    // The default is hybrid: the same answer as mode=hybrid.
    expect((await list(PARAPHRASE, null)).body).toEqual((await list(PARAPHRASE, 'hybrid')).body);
  });

  it('finds a paraphrase by meaning in semantic and hybrid, but not in keyword mode', async () => {
    expect(idsOf((await list(PARAPHRASE, 'semantic')).body)[0]).toBe(ids['bread']);
    expect(idsOf((await list(PARAPHRASE, 'hybrid')).body)[0]).toBe(ids['bread']);
    expect(idsOf((await list(PARAPHRASE, 'keyword')).body)).not.toContain(ids['bread']);
  });

  it('keeps unrelated nodes out of semantic answers (cosine floor) and pages within the capped total', async () => {
    const page = (await list(PARAPHRASE, 'semantic')).body;
    expect(idsOf(page)).not.toContain(ids['tax']);
    expect(page.total).toBe(page.data.length);
    const beyond = (await list(PARAPHRASE, 'semantic', '&page=50')).body;
    expect(beyond).toEqual({ data: [], total: page.total, page: 50, per_page: 20 });
  });

  it('honours status, PARA item and orphan filters in every mode', async () => {
    for (const mode of ['keyword', 'semantic', 'hybrid']) {
      expect(idsOf((await list('tax filing receipts', mode, `&para_item_id=${project.id}`)).body), mode).toEqual([
        ids['tax'],
      ]);
      expect(idsOf((await list('tax filing receipts', mode, '&orphan=true')).body), mode).not.toContain(ids['tax']);
      expect(idsOf((await list('tax filing receipts', mode, '&orphan=false')).body), mode).toEqual([ids['tax']]);
      expect((await list('sourdough starter', mode, '&status=validated')).body.data, mode).toEqual([]);
    }
    // A status change reaches the index (re-embedded off the write path).
    expect(
      (await api('PATCH', `/nodes/${ids['bike']}`, { auth: s.bearer, body: { status: 'validated' } })).status,
    ).toBe(200);
    await waitIndexed(s.bearer, ids['bike']!, 'flat tyre', '&status=validated');
    for (const mode of ['semantic', 'hybrid']) {
      expect(idsOf((await list('flat tyre', mode, '&status=validated')).body), mode).toEqual([ids['bike']]);
      expect(idsOf((await list('flat tyre', mode, '&status=raw')).body), mode).not.toContain(ids['bike']);
    }
  });

  it('finds a long node by its title: the body does not drown the head', async () => {
    const long = await createNode(s.bearer, {
      title: 'Measurement protocol for rainfall',
      content: `Appendix: ${'lorem ipsum dolor sit amet consectetur '.repeat(120)}`,
    });
    await waitIndexed(s.bearer, long.id, 'lorem ipsum dolor sit amet');
    expect(idsOf((await list('rainfall measurement protocol', 'semantic')).body)).toContain(long.id);
    await api('DELETE', `/nodes/${long.id}`, { auth: s.bearer });
  });

  it("never returns another tenant's nodes", async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const mine = idsOf((await list(BREAD.title, mode)).body);
      expect(mine, mode).toContain(ids['bread']);
      expect(mine, mode).not.toContain(ids['otherBread']);
      const theirs = idsOf((await list(BREAD.title, mode, '', other.bearer)).body);
      expect(theirs, mode).toEqual([ids['otherBread']]);
    }
  });

  it('refuses a query over 500 characters with 400 in every mode', async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const p = expectProblem(await list('a'.repeat(501), mode), 400);
      expect(p.errors?.[0]?.path).toBe('query.query');
    }
  });
});

describe('link suggestions', () => {
  const suggest = (query: string, auth = s.bearer) => api('GET', `/links/suggestions?${query}`, { auth });

  it('ranks the matching node first, with its title and score, and never shows another tenant’s', async () => {
    const res = await suggest(`text=${encodeURIComponent('How do I keep my bread culture fed and happy?')}`);
    expect(res.status).toBe(200);
    const body = conforms(LinkSuggestions, res.body);
    expect(body.suggestions[0]).toMatchObject({ node_id: ids['bread'], title: BREAD.title });
    expect(body.suggestions[0]!.score).toBeGreaterThan(0);
    expect(body.suggestions.length).toBeLessThanOrEqual(10);
    expect(body.suggestions.map((x) => x.node_id)).not.toContain(ids['otherBread']);
  });

  it('with node_id, leaves out the node itself and the nodes it links to', async () => {
    await api('PATCH', `/nodes/${ids['tax']}/links`, {
      auth: s.bearer,
      body: { links: [{ target_id: ids['bike'], type: 'related' }] },
    });
    const text = encodeURIComponent('patching a punctured inner tube; filing taxes');
    const all = conforms(LinkSuggestions, (await suggest(`text=${text}`)).body).suggestions.map((x) => x.node_id);
    expect(all).toContain(ids['bike']);
    const res = await suggest(`text=${text}&node_id=${ids['tax']}`);
    const some = conforms(LinkSuggestions, res.body).suggestions.map((x) => x.node_id);
    expect(some).not.toContain(ids['bike']);
    expect(some).not.toContain(ids['tax']);
  });

  it('answers 400 for a missing, empty or over-long text and unknown parameters, 404 for an unknown node_id', async () => {
    for (const q of ['', 'text=', `text=${'a'.repeat(10_001)}`, 'text=x&limit=5']) expectProblem(await suggest(q), 400);
    expect((await suggest(`text=${'a'.repeat(10_000)}`)).status).toBe(200);
    expectProblem(await suggest(`text=x&node_id=${UNKNOWN_NODE}`), 404);
    expectProblem(await suggest(`text=x&node_id=${ids['otherBread']}`), 404);
    // An empty node_id is refused by the documented minLength, naming the query parameter (found by the fuzzer).
    const empty = expectProblem(await suggest('text=x&node_id='), 400);
    expect(empty.errors).toEqual([{ path: 'query.node_id', message: expect.any(String) }]);
  });
});
