import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LinkList, RelatedList } from '@kg/contracts';
import { api, conforms, createNode, expectProblem, newTenant, UNKNOWN_NODE, type Session } from './support/client';

type LinkOut = { target_id: string; type: string; weight: number };
type Related = { id: string; title: string; summary: string; relationship_type: string };

let s: Session;
let a: string, b: string, c: string, d: string;
beforeAll(async () => {
  s = await newTenant('links');
  a = (await createNode(s.bearer, { title: 'A', summary: 'first' })).id;
  b = (await createNode(s.bearer, { title: 'B', summary: 'second' })).id;
  c = (await createNode(s.bearer, { title: 'C' })).id;
  d = (await createNode(s.bearer, { title: 'D' })).id;
});

const replace = (id: string, links: unknown[], auth = s.bearer) =>
  api<{ links: LinkOut[] }>('PATCH', `/nodes/${id}/links`, { auth, body: { links } });
const related = (id: string, limit = 500, auth = s.bearer) =>
  api<{ nodes: Related[] }>('GET', `/nodes/${id}/related?limit=${limit}`, { auth });
const byId = (x: string, y: string) => (x < y ? -1 : 1);

describe('PATCH /nodes/:id/links', () => {
  it('replaces links, mirrors them with the same type and weight, and sorts by weight then target', async () => {
    const res = await replace(a, [
      { target_id: b, type: 'supports', weight: 0.4 },
      { target_id: c, type: 'references' },
      { target_id: d, type: 'part_of', weight: 0.4 },
    ]);
    expect(res.status).toBe(200);
    conforms(LinkList, res.body);
    const ties = [
      { target_id: b, type: 'supports', weight: 0.4 },
      { target_id: d, type: 'part_of', weight: 0.4 },
    ].sort((x, y) => byId(x.target_id, y.target_id));
    const expected = [{ target_id: c, type: 'references', weight: 1 }, ...ties];
    expect(res.body).toEqual({ links: expected });
    const fromB = await related(b);
    conforms(RelatedList, fromB.body);
    expect(fromB.body).toEqual({ nodes: [{ id: a, title: 'A', summary: 'first', relationship_type: 'supports' }] });
    expect((await related(d)).body.nodes).toEqual([
      { id: a, title: 'A', summary: 'first', relationship_type: 'part_of' },
    ]);
    expect((await related(a)).body.nodes.map((n) => [n.id, n.relationship_type])).toEqual(
      expected.map((l) => [l.target_id, l.type]),
    );
    // The same request again changes nothing.
    expect(
      (
        await replace(a, [
          { target_id: c, type: 'references' },
          { target_id: b, type: 'supports', weight: 0.4 },
          { target_id: d, type: 'part_of', weight: 0.4 },
        ])
      ).body,
    ).toEqual({ links: expected });
  });

  it('removes dropped links in both directions, from either end', async () => {
    await replace(a, [
      { target_id: b, type: 'related' },
      { target_id: c, type: 'related' },
    ]);
    const res = await replace(a, [{ target_id: c, type: 'related', weight: 0.7 }]);
    expect(res.body).toEqual({ links: [{ target_id: c, type: 'related', weight: 0.7 }] });
    expect((await related(b)).body.nodes).toEqual([]);
    expect((await related(d)).body.nodes).toEqual([]);
    expect((await related(c)).body.nodes).toEqual([
      { id: a, title: 'A', summary: 'first', relationship_type: 'related' },
    ]);
    // Replacing C's links drops C–A, seen from A as well.
    expect((await replace(c, [{ target_id: d, type: 'supports' }])).status).toBe(200);
    expect((await related(a)).body.nodes).toEqual([]);
    expect((await replace(a, [])).body).toEqual({ links: [] });
    expect((await related(d)).body.nodes.map((n) => n.id)).toEqual([c]);
    await replace(c, []);
    for (const id of [a, b, c, d]) expect((await related(id)).body.nodes).toEqual([]);
  });

  it('rejects self-links, duplicates, unknown/malformed/foreign targets, bad types and weights (400), changing nothing', async () => {
    await replace(a, [{ target_id: b, type: 'related' }]);
    const other = await newTenant('links-other');
    const foreign = (await createNode(other.bearer, { title: 'F' })).id;
    const ok = { target_id: c, type: 'related' };
    const cases: Array<[unknown[], RegExp]> = [
      [[{ target_id: a, type: 'related' }], /^links\.0\.target_id/],
      [[ok, { target_id: b, type: 'related' }, { target_id: b, type: 'supports' }], /^links\.[12]\.target_id/],
      [[{ target_id: UNKNOWN_NODE, type: 'related' }], /^links\.0\.target_id/],
      [[ok, { target_id: 'garbage', type: 'related' }], /^links\.1\.target_id/],
      [[{ target_id: foreign, type: 'related' }], /^links\.0\.target_id/],
      [[{ target_id: b, type: 'Related' }], /^links\.0\.type/],
      [[{ target_id: b, type: '' }], /^links\.0\.type/],
      [[{ target_id: b, type: '1st' }], /^links\.0\.type/],
      [[{ target_id: b, type: 'has-dash' }], /^links\.0\.type/],
      [[{ target_id: b, type: 'x'.repeat(41) }], /^links\.0\.type/],
      [[{ target_id: b, type: 'related', weight: 0 }], /^links\.0\.weight/],
      [[{ target_id: b, type: 'related', weight: -0.5 }], /^links\.0\.weight/],
      [[{ target_id: b, type: 'related', weight: 1.5 }], /^links\.0\.weight/],
      [[{ target_id: b, type: 'related', weight: '1' }], /^links\.0\.weight/],
      [[{ target_id: b }], /^links\.0\.type/],
      [[{ type: 'related' }], /^links\.0\.target_id/],
      [[{ target_id: b, type: 'related', note: 'x' }], /^links\.0/],
    ];
    for (const [links, path] of cases) {
      const p = expectProblem(await replace(a, links), 400);
      expect(
        p.errors?.map((e) => e.path),
        JSON.stringify(links),
      ).toContainEqual(expect.stringMatching(path));
    }
    expectProblem(await api('PATCH', `/nodes/${a}/links`, { auth: s.bearer, body: {} }), 400);
    expectProblem(await api('PATCH', `/nodes/${a}/links`, { auth: s.bearer, body: { links: {} } }), 400);
    expect((await related(a)).body.nodes.map((n) => n.id)).toEqual([b]);
    expect((await related(foreign, 5, other.bearer)).body).toEqual({ nodes: [] });
    expect((await replace(a, [{ target_id: b, type: 'x'.repeat(40), weight: 0.001 }])).body).toEqual({
      links: [{ target_id: b, type: 'x'.repeat(40), weight: 0.001 }],
    });
  });

  it('answers 404 for an unknown or malformed source node', async () => {
    expectProblem(await replace(UNKNOWN_NODE, []), 404);
    expectProblem(await replace('garbage', [{ target_id: a, type: 'related' }]), 404);
  });
});

describe('GET /nodes/:id/related', () => {
  it('requires limit between 1 and 500', async () => {
    for (const q of ['', '?limit=', '?limit=0', '?limit=501', '?limit=abc', '?limit=2.5', '?limit=5&extra=1']) {
      expectProblem(await api('GET', `/nodes/${a}/related${q}`, { auth: s.bearer }), 400);
    }
    expect((await related(a, 500)).status).toBe(200);
    expect((await related(a, 1)).status).toBe(200);
    expectProblem(await related(UNKNOWN_NODE, 5), 404);
  });

  it('honours the limit and orders by weight desc, then id', async () => {
    await replace(a, [
      { target_id: b, type: 'related', weight: 0.2 },
      { target_id: c, type: 'supports', weight: 0.9 },
      { target_id: d, type: 'related', weight: 0.2 },
    ]);
    const all = (await related(a)).body.nodes;
    expect(all.map((n) => n.id)).toEqual([c, ...[b, d].sort(byId)]);
    expect(all[0]).toEqual({ id: c, title: 'C', summary: '', relationship_type: 'supports' });
    expect((await related(a, 1)).body.nodes.map((n) => n.id)).toEqual([c]);
    expect((await related(a, 2)).body.nodes).toEqual(all.slice(0, 2));
    // Title and summary changes show through.
    await api('PATCH', `/nodes/${c}`, { auth: s.bearer, body: { title: 'C2', summary: 'renamed' } });
    expect((await related(a, 1)).body.nodes[0]).toMatchObject({ title: 'C2', summary: 'renamed' });
  });
});

describe('link symmetry (property, through the REST API)', () => {
  it('after random sequences of full replacements, /related matches the undirected model from both ends', async () => {
    const t = await newTenant('prop');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createNode(t.bearer, { title: `n${i}` })).id);
    const step = fc.record({
      src: fc.nat({ max: 3 }),
      links: fc.uniqueArray(
        fc.record({
          to: fc.nat({ max: 3 }),
          type: fc.constantFrom('related', 'supports'),
          w: fc.constantFrom(0.25, 0.5, 1),
        }),
        { selector: (l) => l.to, maxLength: 3 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        for (const id of ids) await replace(id, [], t.bearer);
        const model = new Map<string, { type: string; weight: number }>(); // key: "i|j" with i < j
        const key = (i: number, j: number) => (i < j ? `${i}|${j}` : `${j}|${i}`);
        for (const { src, links } of steps) {
          const out = links.filter((l) => l.to !== src);
          const res = await replace(
            ids[src]!,
            out.map((l) => ({ target_id: ids[l.to]!, type: l.type, weight: l.w })),
            t.bearer,
          );
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          for (const k of [...model.keys()]) if (k.split('|').map(Number).includes(src)) model.delete(k);
          for (const l of out) model.set(key(src, l.to), { type: l.type, weight: l.w });
        }
        for (let i = 0; i < ids.length; i++) {
          const expected = [...model.entries()]
            .map(([k, v]) => ({ ends: k.split('|').map(Number), ...v }))
            .filter((e) => e.ends.includes(i))
            .map((e) => ({ id: ids[e.ends[0] === i ? e.ends[1]! : e.ends[0]!]!, type: e.type, weight: e.weight }))
            .sort((x, y) => y.weight - x.weight || byId(x.id, y.id));
          const got = (await related(ids[i]!, 500, t.bearer)).body.nodes;
          expect(got.map((n) => [n.id, n.relationship_type])).toEqual(expected.map((e) => [e.id, e.type]));
        }
      }),
      { numRuns: 20 },
    );
  }, 60_000);

  it('stays symmetric when replacements on overlapping nodes race', async () => {
    const t = await newTenant('prop-race');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createNode(t.bearer, { title: `r${i}` })).id);
    const step = fc.record({ src: fc.nat({ max: 3 }), to: fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 3 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 5 }), async (steps) => {
        const answers = await Promise.all(
          steps.map(({ src, to }, n) =>
            replace(
              ids[src]!,
              to.filter((x) => x !== src).map((x) => ({ target_id: ids[x]!, type: `t${n}`, weight: 0.5 })),
              t.bearer,
            ),
          ),
        );
        expect(answers.map((r) => r.status)).toEqual(steps.map(() => 200));
        const seen = new Map<string, string>(); // "from>to" -> type
        for (const id of ids)
          for (const n of (await related(id, 500, t.bearer)).body.nodes) seen.set(`${id}>${n.id}`, n.relationship_type);
        for (const [k, type] of seen) {
          const [from, to] = k.split('>');
          expect(seen.get(`${to}>${from}`), k).toBe(type);
        }
      }),
      { numRuns: 10 },
    );
  }, 60_000);
});
