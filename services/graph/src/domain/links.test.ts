import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_TIMEOUT, graphHarness, problemOf, statusOf, type GraphHarness } from '../testing';

let h: GraphHarness;
beforeAll(async () => {
  h = await graphHarness();
}, HARNESS_TIMEOUT);
afterAll(() => h.database.close());

const UNKNOWN = 'node_01jd8x6q1bf5r3v2m9w7k4t0za';
const nodesOf = (t: number, titles: string[]) =>
  Promise.all(titles.map(async (title) => (await h.as(t).nodes.create({ title, summary: `${title}!` })).id));
const link = (target_id: string, type = 'related', weight = 1) => ({ target_id, type, weight });
const relatedIds = async (t: number, id: string) =>
  (await h.as(t).links.related({ id, limit: 500 })).nodes.map((n) => [n.id, n.relationship_type]);

describe('links.replace', () => {
  it('stores each link in both directions with the same type and weight, sorted weight desc then id', async () => {
    const [a, b, c, d] = await nodesOf(1, ['A', 'B', 'C', 'D']);
    const res = await h.as(1).links.replace({
      id: a!,
      links: [link(b!, 'supports', 0.5), link(d!, 'part_of', 1), link(c!, 'related', 0.5)],
    });
    const [first, second] = [b!, c!].sort();
    const typeOf = { [b!]: 'supports', [c!]: 'related' };
    expect(res.links).toEqual([
      { target_id: d!, type: 'part_of', weight: 1 },
      { target_id: first, type: typeOf[first!], weight: 0.5 },
      { target_id: second, type: typeOf[second!], weight: 0.5 },
    ]);
    expect(await relatedIds(1, b!)).toEqual([[a, 'supports']]);
    expect(await relatedIds(1, d!)).toEqual([[a, 'part_of']]);
    expect(await h.counts(1, [a!, b!, c!, d!])).toEqual({ [a!]: 3, [b!]: 1, [c!]: 1, [d!]: 1 });
  });

  it('is a full replacement: absent links go in both directions, changed ones are updated', async () => {
    const [a, b, c] = await nodesOf(2, ['A', 'B', 'C']);
    await h.as(2).links.replace({ id: a!, links: [link(b!), link(c!)] });
    const res = await h.as(2).links.replace({ id: a!, links: [link(c!, 'contradicts', 0.25)] });
    expect(res.links).toEqual([{ target_id: c, type: 'contradicts', weight: 0.25 }]);
    expect(await relatedIds(2, b!)).toEqual([]);
    expect(await relatedIds(2, c!)).toEqual([[a, 'contradicts']]);
    expect(await h.counts(2, [a!, b!, c!])).toEqual({ [a!]: 1, [b!]: 0, [c!]: 1 });
    expect((await h.as(2).links.replace({ id: a!, links: [] })).links).toEqual([]);
    expect(await h.counts(2, [a!, b!, c!])).toEqual({ [a!]: 0, [b!]: 0, [c!]: 0 });
  });

  it('counts a neighbour once when both ends declared the link', async () => {
    const [a, b] = await nodesOf(3, ['A', 'B']);
    await h.as(3).links.replace({ id: a!, links: [link(b!, 'related', 0.5)] });
    await h.as(3).links.replace({ id: b!, links: [link(a!, 'supports', 0.75)] });
    expect(await relatedIds(3, a!)).toEqual([[b, 'supports']]);
    expect(await h.counts(3, [a!, b!])).toEqual({ [a!]: 1, [b!]: 1 });
  });

  it('rejects self-links, duplicates and unknown, malformed or foreign targets with field paths', async () => {
    const [a, b] = await nodesOf(4, ['A', 'B']);
    const [foreign] = await nodesOf(5, ['F']);
    await h.as(4).links.replace({ id: a!, links: [link(b!)] });
    const shape = await problemOf(h.as(4).links.replace({ id: a!, links: [link(b!), link(a!), link(b!, 'x')] }));
    expect(shape).toMatchObject({ status: 400 });
    expect(shape?.errors).toEqual([
      { path: 'links.1.target_id', message: 'a node cannot link to itself' },
      { path: 'links.2.target_id', message: 'duplicate target' },
    ]);
    const targets = await problemOf(
      h.as(4).links.replace({ id: a!, links: [link(b!), link(UNKNOWN), link('node_garbage'), link(foreign!)] }),
    );
    expect(targets).toMatchObject({ status: 400 });
    // Unknown, malformed and another tenant's ids read the same: nothing is revealed.
    expect(targets?.errors).toEqual([1, 2, 3].map((i) => ({ path: `links.${i}.target_id`, message: 'no such node' })));
    expect(await relatedIds(4, a!)).toEqual([[b, 'related']]);
    expect(await relatedIds(5, foreign!)).toEqual([]);
  });

  it('answers 404 for an unknown, malformed or other tenant’s source node', async () => {
    const [mine] = await nodesOf(6, ['Mine']);
    const [theirs] = await nodesOf(7, ['Theirs']);
    for (const id of [UNKNOWN, 'garbage', theirs!])
      expect(await statusOf(h.as(6).links.replace({ id, links: [link(mine!)] }))).toBe(404);
    expect(await statusOf(h.as(6).links.related({ id: theirs!, limit: 5 }))).toBe(404);
    expect(await statusOf(h.as(6).links.related({ id: 'garbage', limit: 5 }))).toBe(404);
    expect(await relatedIds(7, theirs!)).toEqual([]);
  });
});

describe('links.related', () => {
  it('returns one-hop neighbours, weight desc then id asc, at most limit', async () => {
    const [hub, x, y, z, far] = await nodesOf(8, ['Hub', 'X', 'Y', 'Z', 'Far']);
    await h.as(8).links.replace({ id: hub!, links: [link(x!, 'a', 0.5), link(y!, 'b', 0.9), link(z!, 'c', 0.5)] });
    await h.as(8).links.replace({ id: x!, links: [link(hub!, 'a', 0.5), link(far!)] });
    const halves = [x!, z!].sort();
    const res = await h.as(8).links.related({ id: hub!, limit: 3 });
    expect(res.nodes.map((n) => n.id)).toEqual([y, ...halves]);
    expect(res.nodes[0]).toEqual({ id: y, title: 'Y', summary: 'Y!', relationship_type: 'b' });
    expect((await h.as(8).links.related({ id: hub!, limit: 1 })).nodes.map((n) => n.id)).toEqual([y]);
  });
});

describe('nodes.delete with links', () => {
  it('removes every link in both directions and fixes the former neighbours’ counts', async () => {
    const [a, b, c, d] = await nodesOf(9, ['A', 'B', 'C', 'D']);
    await h.as(9).links.replace({ id: a!, links: [link(b!), link(c!)] });
    await h.as(9).links.replace({ id: d!, links: [link(a!), link(b!)] });
    expect(await h.counts(9, [a!, b!, c!, d!])).toEqual({ [a!]: 3, [b!]: 2, [c!]: 1, [d!]: 2 });
    await h.as(9).nodes.delete({ id: a! });
    expect(await h.counts(9, [a!, b!, c!, d!])).toEqual({ [b!]: 1, [c!]: 0, [d!]: 1 });
    expect(await relatedIds(9, b!)).toEqual([[d, 'related']]);
    expect(await relatedIds(9, c!)).toEqual([]);
    expect(await relatedIds(9, d!)).toEqual([[b, 'related']]);
  });
});
