import { beforeEach, describe, expect, it } from 'vitest';
import { typeid } from 'typeid-js';
import type { PayloadValue, VectorFilter, VectorIndex, VectorPoint } from './port';
import { VectorCollectionMismatchError } from './errors';

const A = 'tenant_a';
const B = 'tenant_b';
let sequence = 0;

/**
 * Every collection the suite makes starts with this, unique to the run, so a run against a
 * server that keeps its data (a real Qdrant) never meets an earlier run's points; such a
 * suite deletes the collections with this prefix afterwards.
 */
export const CONTRACT_COLLECTION_PREFIX = `contract_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}_`;

/** The payload keys the suite filters on besides tenant_id (Qdrant indexes each). */
export const CONTRACT_FILTER_KEYS = ['kind', 'tags', 'source'] as const;

const point = (id: string, vector: number[], tenant = A, extra: Record<string, PayloadValue> = {}): VectorPoint => ({
  id,
  vector,
  payload: { tenant_id: tenant, ...extra },
});

/**
 * The behaviour every VectorIndex adapter must share. Each test gets a fresh index
 * from `makeIndex` and a collection name of its own, so adapters backed by one
 * server can run it too.
 */
export function describeVectorIndexContract(name: string, makeIndex: () => Promise<VectorIndex>): void {
  describe(`VectorIndex contract: ${name}`, () => {
    let index: VectorIndex;
    let col: string;

    beforeEach(async () => {
      index = await makeIndex();
      sequence += 1;
      col = `${CONTRACT_COLLECTION_PREFIX}${sequence}`;
      await index.ensureCollection(col, 3, { filterKeys: CONTRACT_FILTER_KEYS });
    });

    it('is ready, and ensureCollection is idempotent but refuses other dimensions', async () => {
      expect(await index.ready()).toBe(true);
      await index.upsert(col, [point('p1', [1, 0, 0], A, { kind: 'note' })]);
      await index.ensureCollection(col, 3);
      await index.ensureCollection(col, 3, { filterKeys: [...CONTRACT_FILTER_KEYS, 'status'] });
      expect(await index.count(col, { tenant_id: A })).toBe(1);
      expect(await index.count(col, { tenant_id: A, kind: 'note' })).toBe(1);
      await expect(index.ensureCollection(col, 4)).rejects.toThrow(/3 dimensions/);
      // The same typed refusal from every adapter, naming the setting that differs.
      await expect(index.ensureCollection(col, 4)).rejects.toBeInstanceOf(VectorCollectionMismatchError);
      await expect(index.ensureCollection(col, 4)).rejects.toMatchObject({ collection: col, setting: 'size' });
      await expect(index.ensureCollection(col, 3, { filterKeys: ['_id'] })).rejects.toThrow(/reserved/);
    });

    it('survives concurrent ensureCollection calls for a new collection', async () => {
      const fresh = `${col}_fresh`;
      await Promise.all([
        index.ensureCollection(fresh, 2, { filterKeys: ['kind'] }),
        index.ensureCollection(fresh, 2, { filterKeys: ['kind'] }),
        index.ensureCollection(fresh, 2),
      ]);
      await index.upsert(fresh, [point('p1', [1, 0])]);
      expect(await index.count(fresh, { tenant_id: A })).toBe(1);
    });

    it('returns the nearest first with cosine scores in [-1, 1]', async () => {
      const ids = [typeid('node').toString(), typeid('node').toString(), typeid('node').toString()];
      await index.upsert(col, [point(ids[0]!, [1, 0, 0]), point(ids[1]!, [0.6, 0.8, 0]), point(ids[2]!, [-2, 0, 0])]);
      const hits = await index.search(col, { vector: [3, 0, 0], limit: 10, filter: { tenant_id: A } });
      expect(hits.map((h) => h.id)).toEqual(ids);
      expect(hits.map((h) => h.score)).toEqual([expect.closeTo(1, 5), expect.closeTo(0.6, 5), expect.closeTo(-1, 5)]);
      for (const hit of hits) expect(Math.abs(hit.score)).toBeLessThanOrEqual(1);
      expect(hits[0]!.payload).toEqual({ tenant_id: A });
    });

    it('breaks score ties by id ascending and respects limit and scoreThreshold', async () => {
      await index.upsert(col, ['c', 'a', 'b', 'd'].map((id) => point(id, [0, 1, 0])).concat(point('far', [1, 0, 0])));
      const query = { vector: [0, 2, 0], filter: { tenant_id: A } };
      expect((await index.search(col, { ...query, limit: 10 })).map((h) => h.id)).toEqual(['a', 'b', 'c', 'd', 'far']);
      expect((await index.search(col, { ...query, limit: 2 })).map((h) => h.id)).toHaveLength(2);
      const close = await index.search(col, { ...query, limit: 10, scoreThreshold: 0.5 });
      expect(close.map((h) => h.id)).toEqual(['a', 'b', 'c', 'd']);
    });

    it('replaces vector and payload when the same id is upserted again', async () => {
      await index.upsert(col, [point('p1', [1, 0, 0], A, { kind: 'note' })]);
      await index.upsert(col, [point('p1', [0, 0, 1], A, { kind: 'task', rank: 2, done: false, tags: ['x', 'y'] })]);
      expect(await index.count(col, { tenant_id: A })).toBe(1);
      const [hit] = await index.search(col, { vector: [0, 0, 1], limit: 1, filter: { tenant_id: A } });
      expect(hit).toEqual({
        id: 'p1',
        score: expect.closeTo(1, 5),
        payload: { tenant_id: A, kind: 'task', rank: 2, done: false, tags: ['x', 'y'] },
      });
    });

    it('isolates tenants in search, count and deleteByFilter', async () => {
      await index.upsert(col, [point('a1', [1, 0, 0], A), point('a2', [0, 1, 0], A), point('b1', [0.9, 0.1, 0], B)]);
      const seenByB = await index.search(col, { vector: [1, 0, 0], limit: 10, filter: { tenant_id: B } });
      expect(seenByB.map((h) => h.id)).toEqual(['b1']);
      expect(await index.count(col, { tenant_id: B })).toBe(1);
      await index.deleteByFilter(col, { tenant_id: B });
      expect(await index.count(col, { tenant_id: A })).toBe(2);
      expect(await index.search(col, { vector: [1, 0, 0], limit: 10, filter: { tenant_id: 'tenant_c' } })).toEqual([]);
    });

    it('filters on extra keys, matching string[] fields by element', async () => {
      await index.upsert(col, [
        point('n1', [1, 0, 0], A, { kind: 'note', tags: ['red', 'blue'] }),
        point('n2', [1, 0, 0], A, { kind: 'note', tags: ['green'] }),
        point('t1', [1, 0, 0], A, { kind: 'task', tags: ['blue'] }),
        point('bn', [1, 0, 0], B, { kind: 'note', tags: ['blue'] }),
      ]);
      expect(await index.count(col, { tenant_id: A, kind: 'note' })).toBe(2);
      const blueNotes = await index.search(col, {
        vector: [1, 0, 0],
        limit: 10,
        filter: { tenant_id: A, kind: 'note', tags: 'blue' },
      });
      expect(blueNotes.map((h) => h.id)).toEqual(['n1']);
      await index.deleteByFilter(col, { tenant_id: A, tags: 'blue' });
      const left = await index.search(col, { vector: [1, 0, 0], limit: 10, filter: { tenant_id: A } });
      expect(left.map((h) => h.id)).toEqual(['n2']);
      expect(await index.count(col, { tenant_id: B, kind: 'note' })).toBe(1);
    });

    it('stores null payload values, which no filter matches', async () => {
      await index.upsert(col, [
        point('made', [1, 0, 0], A, { source: null }),
        point('taken', [1, 0, 0], A, { source: 'cap_1' }),
      ]);
      const hits = await index.search(col, { vector: [1, 0, 0], limit: 10, filter: { tenant_id: A } });
      expect(hits.map((h) => h.payload)).toEqual([
        { tenant_id: A, source: null },
        { tenant_id: A, source: 'cap_1' },
      ]);
      expect(await index.count(col, { tenant_id: A, source: 'cap_1' })).toBe(1);
      expect(await index.count(col, { tenant_id: A, source: 'null' })).toBe(0);
      expect(await index.count(col, { tenant_id: A, source: '' })).toBe(0);
    });

    it('setPayload merges keys into one stored point, keeping its vector, and refuses a missing point', async () => {
      await index.upsert(col, [
        point('s1', [0, 1, 0], A, { kind: 'note', rank: 1 }),
        point('s2', [0, 1, 0], A, { kind: 'note' }),
      ]);
      await index.setPayload(col, 's1', { source: 'cap_9', rank: 2 });
      const [hit] = await index.search(col, {
        vector: [0, 1, 0],
        limit: 10,
        filter: { tenant_id: A, source: 'cap_9' },
      });
      expect(hit).toEqual({
        id: 's1',
        score: expect.closeTo(1, 5),
        payload: { tenant_id: A, kind: 'note', rank: 2, source: 'cap_9' },
      });
      await index.setPayload(col, 's1', { source: null });
      expect(await index.count(col, { tenant_id: A, source: 'cap_9' })).toBe(0);
      expect(await index.count(col, { tenant_id: A, kind: 'note' })).toBe(2);
      await expect(index.setPayload(col, 'missing', { source: 'cap_9' })).rejects.toThrow(
        /does not exist|no point|not found/i,
      );
      await expect(index.setPayload(col, 's2', { tenant_id: B })).rejects.toThrow(/tenant_id/);
      await expect(index.setPayload(col, 's2', { _id: 'x' })).rejects.toThrow(/_id/);
      expect(await index.count(col, { tenant_id: B })).toBe(0);
    });

    it('lists the ids of one tenant (filtered), every page of them, and nothing of another tenant', async () => {
      const many = Array.from({ length: 1205 }, (_, i) => point(`node_${String(i).padStart(4, '0')}`, [1, i, 0]));
      for (let i = 0; i < many.length; i += 500) await index.upsert(col, many.slice(i, i + 500));
      await index.upsert(col, [point('b1', [1, 0, 0], B, { kind: 'note' }), point('b2', [0, 1, 0], B)]);
      const ids = await index.ids(col, { tenant_id: A });
      expect(ids).toHaveLength(1205);
      expect([...ids].sort()).toEqual(many.map((p) => p.id));
      expect((await index.ids(col, { tenant_id: B })).sort()).toEqual(['b1', 'b2']);
      expect(await index.ids(col, { tenant_id: B, kind: 'note' })).toEqual(['b1']);
      expect(await index.ids(col, { tenant_id: 'tenant_none' })).toEqual([]);
      await expect(index.ids(col, {} as VectorFilter)).rejects.toThrow(/tenant_id/);
    });

    it('lists collections and drops one with its points, leaving the others', async () => {
      const other = `${col}_other`;
      await index.ensureCollection(other, 3);
      await index.upsert(other, [point('o1', [1, 0, 0])]);
      await index.upsert(col, [point('c1', [1, 0, 0])]);
      expect(await index.collections()).toEqual(expect.arrayContaining([col, other]));
      await index.dropCollection(other);
      await index.dropCollection(other); // idempotent
      expect(await index.collections()).not.toContain(other);
      expect(await index.collections()).toContain(col);
      const gone = await index.count(other, { tenant_id: A }).then(
        () => undefined,
        (err: unknown) => err as Error & { diagnostic?: string },
      );
      expect(`${gone?.message} ${gone?.diagnostic ?? ''}`).toMatch(/not exist|doesn't exist|not found/i);
      expect(await index.count(col, { tenant_id: A })).toBe(1);
    });

    it('deletes by id, ignoring unknown ids', async () => {
      await index.upsert(col, [point('d1', [1, 0, 0]), point('d2', [0, 1, 0]), point('d3', [0, 0, 1])]);
      await index.delete(col, ['d1', 'd3', 'missing']);
      await index.delete(col, []);
      const hits = await index.search(col, { vector: [1, 1, 1], limit: 10, filter: { tenant_id: A } });
      expect(hits.map((h) => h.id)).toEqual(['d2']);
      expect(await index.count(col, { tenant_id: A })).toBe(1);
    });

    it('rejects vectors of the wrong dimension, leaving the collection unchanged', async () => {
      await expect(index.upsert(col, [point('ok', [1, 0, 0]), point('bad', [1, 0])])).rejects.toThrow(/dimension/i);
      await expect(index.search(col, { vector: [1, 0, 0, 0], limit: 1, filter: { tenant_id: A } })).rejects.toThrow(
        /dimension/i,
      );
      expect(await index.count(col, { tenant_id: A })).toBe(0);
    });

    it('round-trips ids exactly and keeps its own bookkeeping out of payloads', async () => {
      const ids = [typeid('node').toString(), typeid('capture').toString(), 'legacy:42/ä β', 'NODE_upper', '12345'];
      await index.upsert(
        col,
        ids.map((id, i) => point(id, [1, i, 0])),
      );
      const hits = await index.search(col, { vector: [1, 0, 0], limit: 10, filter: { tenant_id: A } });
      expect(hits.map((h) => h.id).sort()).toEqual([...ids].sort());
      for (const hit of hits) expect(hit.payload).toEqual({ tenant_id: A });
      await index.delete(col, [ids[0]!, ids[2]!]);
      expect(await index.count(col, { tenant_id: A })).toBe(3);
    });

    it('rejects calls without a tenant, reserved payload keys, bad limits and unknown collections', async () => {
      const noTenant = {} as VectorFilter;
      // @ts-expect-error the type makes tenant_id mandatory
      const _untyped: VectorFilter = { kind: 'note' };
      await expect(index.search(col, { vector: [1, 0, 0], limit: 1, filter: noTenant })).rejects.toThrow(/tenant_id/);
      await expect(index.count(col, { tenant_id: '' })).rejects.toThrow(/tenant_id/);
      await expect(index.deleteByFilter(col, noTenant)).rejects.toThrow(/tenant_id/);
      await expect(index.upsert(col, [point('x', [1, 0, 0], A, { _id: 'y' })])).rejects.toThrow(/reserved/);
      await expect(index.search(col, { vector: [1, 0, 0], limit: 0, filter: { tenant_id: A } })).rejects.toThrow(
        /limit/,
      );
      // In-process: a plain error; Qdrant: a typed unavailable one (503) whose diagnostic names it.
      const missing = await index.count(`${col}_missing`, { tenant_id: A }).then(
        () => undefined,
        (err: unknown) => err as Error & { diagnostic?: string },
      );
      expect(`${missing?.message} ${missing?.diagnostic ?? ''}`).toMatch(/not exist|doesn't exist|not found/i);
    });
  });
}
