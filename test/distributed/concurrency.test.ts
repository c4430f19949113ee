import { describe, expect, it } from 'vitest';
import { api, createNode, newTenant } from '../e2e/support/client';

describe('concurrent writes on real Postgres', () => {
  it('overlapping link replacements all succeed and leave symmetric links with exact counts', async () => {
    const s = await newTenant('concurrent');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await createNode(s.bearer, { title: `c${i}` })).id);
    for (let round = 0; round < 8; round++) {
      const results = await Promise.all(
        ids.map((id, i) =>
          api('PATCH', `/nodes/${id}/links`, {
            auth: s.bearer,
            body: {
              links: ids
                .filter((x, j) => x !== id && (j + round) % 3 !== 0)
                .map((t) => ({ target_id: t, type: 'related', weight: 1 - i / 10 })),
            },
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    }
    const neighbours = new Map<string, Set<string>>();
    for (const id of ids) {
      const related = await api<{ nodes: Array<{ id: string }> }>('GET', `/nodes/${id}/related?limit=500`, {
        auth: s.bearer,
      });
      neighbours.set(id, new Set(related.body.nodes.map((n) => n.id)));
    }
    for (const [id, set] of neighbours) {
      for (const n of set) expect(neighbours.get(n)?.has(id)).toBe(true);
      const seed = await api<{ nodes: Array<{ id: string; connection_count: number }> }>(
        'GET',
        `/graph/seed?seed=${id}`,
        { auth: s.bearer },
      );
      expect(seed.body.nodes.find((n) => n.id === id)?.connection_count).toBe(set.size);
    }
  }, 120_000);
});
