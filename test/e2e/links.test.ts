import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { api, createNode, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
let a: string, b: string, c: string;
beforeAll(async () => {
  s = await newTenant('links');
  [a, b, c] = (await Promise.all(['A', 'B', 'C'].map(async (title) => (await createNode(s.bearer, { title })).id))) as [
    string,
    string,
    string,
  ];
});

const replace = (id: string, links: unknown[]) =>
  api('PATCH', `/nodes/${id}/links`, { auth: s.bearer, body: { links } });
const related = (id: string, limit = 500) =>
  api<{ nodes: Array<{ id: string; relationship_type: string }> }>('GET', `/nodes/${id}/related?limit=${limit}`, {
    auth: s.bearer,
  });

describe('PATCH /nodes/:id/links', () => {
  it('replaces links, creates the reverse ones, and sorts by weight', async () => {
    const res = await replace(a, [
      { target_id: b, type: 'supports', weight: 0.4 },
      { target_id: c, type: 'references' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      links: [
        { target_id: c, type: 'references', weight: 1 },
        { target_id: b, type: 'supports', weight: 0.4 },
      ],
    });
    expect((await related(b)).body.nodes).toEqual([{ id: a, title: 'A', summary: '', relationship_type: 'supports' }]);
    expect((await related(a)).body.nodes.map((n) => n.id)).toEqual([c, b]);
  });

  it('removes dropped links in both directions', async () => {
    await replace(a, [
      { target_id: b, type: 'related' },
      { target_id: c, type: 'related' },
    ]);
    const res = await replace(a, [{ target_id: c, type: 'related' }]);
    expect(res.body.links.map((l: { target_id: string }) => l.target_id)).toEqual([c]);
    expect((await related(b)).body.nodes).toEqual([]);
    expect((await replace(a, [])).body).toEqual({ links: [] });
    expect((await related(c)).body.nodes).toEqual([]);
  });

  it('rejects self-links, duplicates, unknown/malformed/foreign targets, bad types and weights (400)', async () => {
    const other = await newTenant('links-other');
    const foreign = (await createNode(other.bearer, { title: 'F' })).id;
    const cases: unknown[][] = [
      [{ target_id: a, type: 'related' }],
      [
        { target_id: b, type: 'related' },
        { target_id: b, type: 'supports' },
      ],
      [{ target_id: 'node_01jd8x6q1bf5r3v2m9w7k4t0za', type: 'related' }],
      [{ target_id: 'garbage', type: 'related' }],
      [{ target_id: foreign, type: 'related' }],
      [{ target_id: b, type: 'Related' }],
      [{ target_id: b, type: '' }],
      [{ target_id: b, type: 'x'.repeat(41) }],
      [{ target_id: b, type: 'related', weight: 0 }],
      [{ target_id: b, type: 'related', weight: 1.5 }],
      [{ target_id: b }],
    ];
    for (const links of cases) {
      const p = expectProblem(await replace(a, links), 400);
      expect(p.errors?.[0]?.path, JSON.stringify(links)).toMatch(/^links\./);
    }
    expectProblem(await api('PATCH', `/nodes/${a}/links`, { auth: s.bearer, body: {} }), 400);
    expect((await related(foreign)).status).toBe(404);
  });

  it('answers 404 for an unknown source node', async () => {
    expectProblem(await replace('node_01jd8x6q1bf5r3v2m9w7k4t0za', []), 404);
  });
});

describe('GET /nodes/:id/related', () => {
  it('requires limit between 1 and 500', async () => {
    for (const q of ['', '?limit=0', '?limit=501', '?limit=abc']) {
      expectProblem(await api('GET', `/nodes/${a}/related${q}`, { auth: s.bearer }), 400);
    }
    expect((await related(a, 500)).status).toBe(200);
    expect((await related(a, 1)).status).toBe(200);
  });

  it('honours the limit and orders by weight', async () => {
    await replace(a, [
      { target_id: b, type: 'related', weight: 0.2 },
      { target_id: c, type: 'related', weight: 0.9 },
    ]);
    expect((await related(a, 1)).body.nodes.map((n) => n.id)).toEqual([c]);
  });
});

describe('link symmetry (property, through the REST API)', () => {
  it('holds after random sequences of full replacements', async () => {
    const t = await newTenant('prop');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createNode(t.bearer, { title: `n${i}` })).id);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            src: fc.nat({ max: 3 }),
            targets: fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 3 }),
            w: fc.constantFrom(0.5, 1),
          }),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        async (steps) => {
          for (const step of steps) {
            const links = step.targets
              .filter((x) => x !== step.src)
              .map((x) => ({ target_id: ids[x]!, type: 'related', weight: step.w }));
            expect(
              (await api('PATCH', `/nodes/${ids[step.src]}/links`, { auth: t.bearer, body: { links } })).status,
            ).toBe(200);
          }
          const neighbours = new Map<string, Set<string>>();
          for (const id of ids) {
            const r = await api<{ nodes: Array<{ id: string }> }>('GET', `/nodes/${id}/related?limit=500`, {
              auth: t.bearer,
            });
            neighbours.set(id, new Set(r.body.nodes.map((n) => n.id)));
          }
          for (const [id, set] of neighbours) for (const n of set) expect(neighbours.get(n)?.has(id)).toBe(true);
        },
      ),
      { numRuns: 20 },
    );
  });
});
