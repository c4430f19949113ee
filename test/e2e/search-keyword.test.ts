import { beforeAll, describe, expect, it } from 'vitest';
import { NodePage, type ParaItem } from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, type Session } from './support/client';

/** GET /nodes?mode=keyword: any word matches, BM25 ranks, user text is never query syntax. */
let s: Session;
let other: Session;
const ids: Record<string, string> = {};
let project: ParaItem;

type Page = { data: Array<{ id: string }>; total: number; page: number; per_page: number };
const search = (q: string, extra = '', auth = s.bearer) =>
  api<Page>('GET', `/nodes?mode=keyword&query=${encodeURIComponent(q)}${extra}`, { auth });
const idsOf = (p: Page) => p.data.map((n) => n.id);

beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('kw'), newTenant('kw-other')]);
  const res = await api<ParaItem>('POST', '/para', {
    auth: s.bearer,
    body: { category: 'projects', label: 'Brewing' },
  });
  project = res.body;
  const make = async (key: string, body: Record<string, unknown>) => (ids[key] = (await createNode(s.bearer, body)).id);
  await make('rare', {
    title: 'Weekend notes',
    content: 'Tried zymurgy with an old library book as the guide.',
    para_item_ids: [project.id],
  });
  await make('bullets', { title: 'Packing list', content: '- tent\n- stove\n- lantern' });
  await make('quoted', { title: 'Quotes', content: 'She said "never give up" and left.' });
  await make('phrase', { title: 'Release checklist', content: 'Tag the release, then publish the checklist.' });
  await make('scattered', { title: 'Checklist', content: 'A release is planned.' });
  for (let i = 0; i < 8; i++)
    await make(`lib${i}`, { title: `Library shelf ${i}`, content: 'Books in the library, library cards.' });
  await createNode(other.bearer, { title: 'Zymurgy elsewhere', content: 'Another tenant’s zymurgy.' });
});

describe('keyword search', () => {
  it('finds a node sharing one rare word with the query, and ranks it above common-word matches', async () => {
    // The query's other words appear nowhere: any word matches, all words are not required.
    const res = await search('how does zymurgy work in practice at a library');
    expect(res.status).toBe(200);
    const page = conforms(NodePage, res.body);
    expect(idsOf(page)[0]).toBe(ids['rare']);
    expect(idsOf(page)).toHaveLength(9);
    expect(page.total).toBe(9);
  });

  it('ranks the phrase above the same words scattered', async () => {
    const order = idsOf((await search('release checklist')).body);
    expect(order.slice(0, 2)).toEqual([ids['phrase'], ids['scattered']]);
  });

  it('never lets a dash, quotes or `or` in the text exclude a node', async () => {
    for (const q of ['tent -stove', 'tent - stove', '-lantern', 'stove -tent -lantern'])
      expect(idsOf((await search(q)).body), q).toEqual([ids['bullets']]);
    for (const q of ['"never give up"', '"never', 'give up"', 'never "give up" or left', 'left or right'])
      expect(idsOf((await search(q)).body), q).toContain(ids['quoted']);
    // `or` is a word like any other (here a stop word), not an operator.
    expect(idsOf((await search('or zymurgy')).body)).toEqual([ids['rare']]);
    for (const q of ["a & b | !c ( ' :*", 'zymurgy <-> library', 'zymurgy:*', "zymurgy's", 'back\\slash zymurgy'])
      expect((await search(q)).status, q).toBe(200);
    expect(idsOf((await search('zymurgy:* !library')).body)).toContain(ids['rare']);
  });

  it('answers an empty page for stop words or punctuation only', async () => {
    for (const q of ['the and of', 'or', '- " ( ) | & ! :*', '...', '   ']) {
      const res = await search(q);
      expect(res.status, q).toBe(200);
      expect(res.body.total, q).toBe(q.trim() === '' ? 13 : 0);
    }
    expect((await search('the and of')).body).toEqual({ data: [], total: 0, page: 1, per_page: 20 });
  });

  it('holds every filter and pages the ranking', async () => {
    expect(idsOf((await search('zymurgy library', `&para_item_id=${project.id}`)).body)).toEqual([ids['rare']]);
    expect(idsOf((await search('zymurgy library', '&orphan=false')).body)).toEqual([ids['rare']]);
    expect((await search('zymurgy library', '&orphan=true')).body.total).toBe(8);
    expect((await search('zymurgy library', '&status=validated')).body).toMatchObject({ data: [], total: 0 });
    await api('PATCH', `/nodes/${ids['lib3']}`, { auth: s.bearer, body: { status: 'validated' } });
    expect(idsOf((await search('library', '&status=validated')).body)).toEqual([ids['lib3']]);
    const all = idsOf((await search('zymurgy library', '&per_page=100')).body);
    const paged: string[] = [];
    for (let p = 1; p <= 3; p++) {
      const res = await search('zymurgy library', `&per_page=4&page=${p}`);
      expect(res.body).toMatchObject({ total: 9, page: p, per_page: 4 });
      paged.push(...idsOf(res.body));
    }
    expect(paged).toEqual(all);
    // Another tenant's nodes never show.
    expect(idsOf((await search('zymurgy', '', other.bearer)).body)).toHaveLength(1);
    expect(idsOf((await search('zymurgy', '', other.bearer)).body)).not.toContain(ids['rare']);
  });

  it('rejects a query over 500 characters with 400', async () => {
    expect((await search('zymurgy '.repeat(62).slice(0, 500))).status).toBe(200);
    const p = expectProblem(await search('a'.repeat(501)), 400);
    expect(p.errors?.[0]?.path).toBe('query.query');
  });
});
