import { appendFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeVectorIndexContract } from './contract';
import { createMemoryVectorIndex } from './memory';
import { VectorCollectionMismatchError } from './errors';

describeVectorIndexContract('memory', async () => createMemoryVectorIndex());
describeVectorIndexContract('memory, persisted', async () =>
  createMemoryVectorIndex({ dir: mkdtempSync(join(tmpdir(), 'kg-vectors-')) }),
);

describe('memory vector index persisted under a folder', () => {
  const filter = { tenant_id: 't' };

  it('a second index on the same folder finds every change of the first (upsert, replace, delete, deleteByFilter, setPayload)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-vectors-'));
    const first = createMemoryVectorIndex({ dir });
    await first.ensureCollection('c', 2);
    await first.upsert('c', [
      { id: 'a', vector: [1, 0], payload: { tenant_id: 't', status: 'raw' } },
      { id: 'b', vector: [0, 1], payload: { tenant_id: 't', status: 'raw' } },
      { id: 'c', vector: [1, 1], payload: { tenant_id: 't', status: 'gone' } },
      { id: 'd', vector: [0.5, 1], payload: { tenant_id: 't', status: 'raw' } },
    ]);
    await first.upsert('c', [{ id: 'a', vector: [0.25, 0.5], payload: { tenant_id: 't', status: 'validated' } }]);
    await first.delete('c', ['b']);
    await first.deleteByFilter('c', { tenant_id: 't', status: 'gone' });
    await first.setPayload('c', 'd', { status: 'reviewed', source_capture_id: null });

    const second = createMemoryVectorIndex({ dir });
    await second.ensureCollection('c', 2);
    const hits = await second.search('c', { vector: [1, 2], limit: 10, filter });
    expect(hits.map((h) => [h.id, h.payload.status])).toEqual([
      ['a', 'validated'],
      ['d', 'reviewed'],
    ]);
    expect(hits[0]!.score).toBeCloseTo(1, 6);
    expect(hits[1]).toEqual({
      id: 'd',
      score: expect.closeTo(1, 6),
      payload: { tenant_id: 't', status: 'reviewed', source_capture_id: null },
    });
    await expect(second.ensureCollection('c', 3)).rejects.toThrow(/2 dimensions/);
  });

  it('ignores a torn last line left by a crash mid-append', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-vectors-'));
    const first = createMemoryVectorIndex({ dir });
    await first.ensureCollection('c', 2);
    await first.upsert('c', [{ id: 'a', vector: [1, 0], payload: { tenant_id: 't' } }]);
    appendFileSync(join(dir, 'c.vlog'), '{"op":"upsert","points":[{"id":"x"');
    const second = createMemoryVectorIndex({ dir });
    await second.ensureCollection('c', 2);
    expect(await second.count('c', filter)).toBe(1);
  });

  it('compacts a log that grew past twice the live points into a snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-vectors-'));
    const index = createMemoryVectorIndex({ dir });
    await index.ensureCollection('c', 2);
    for (let i = 0; i < 1100; i += 1) {
      await index.upsert('c', [{ id: 'same', vector: [i, 1], payload: { tenant_id: 't', i } }]);
    }
    const lines = readFileSync(join(dir, 'c.vlog'), 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(200);
    expect(readdirSync(dir)).toEqual(['c.vlog']);
    const reopened = createMemoryVectorIndex({ dir });
    await reopened.ensureCollection('c', 2);
    const [hit] = await reopened.search('c', { vector: [1, 0], limit: 1, filter });
    expect(hit!.payload.i).toBe(1099);
  });

  it('refuses a collection name that is not a safe file name', async () => {
    const index = createMemoryVectorIndex({ dir: mkdtempSync(join(tmpdir(), 'kg-vectors-')) });
    await expect(index.ensureCollection('../escape', 2)).rejects.toThrow(/safe file name/);
  });
});

describe('memory vector index', () => {
  it('copies payloads in and out, so callers cannot mutate stored points', async () => {
    const index = createMemoryVectorIndex();
    await index.ensureCollection('c', 2);
    const tags = ['a'];
    await index.upsert('c', [{ id: 'p', vector: [1, 0], payload: { tenant_id: 't', tags } }]);
    tags.push('mutated');
    const [hit] = await index.search('c', { vector: [1, 0], limit: 1, filter: { tenant_id: 't' } });
    (hit!.payload.tags as string[]).push('again');
    const [again] = await index.search('c', { vector: [1, 0], limit: 1, filter: { tenant_id: 't' } });
    expect(again!.payload.tags).toEqual(['a']);
  });

  it('scores a zero vector 0 instead of NaN', async () => {
    const index = createMemoryVectorIndex();
    await index.ensureCollection('c', 2);
    await index.upsert('c', [{ id: 'z', vector: [0, 0], payload: { tenant_id: 't' } }]);
    const [hit] = await index.search('c', { vector: [1, 0], limit: 1, filter: { tenant_id: 't' } });
    expect(hit!.score).toBe(0);
  });
});

describe('memory vector index layout (per-tenant segments, bounded top-k)', () => {
  it('keeps the best `limit` of many hits, ties by id, and reuses freed slots', async () => {
    const index = createMemoryVectorIndex();
    await index.ensureCollection('c', 3);
    const points = Array.from({ length: 300 }, (_, i) => ({
      id: `p${String(i).padStart(3, '0')}`,
      vector: [1, (i % 30) / 10, 0.5],
      payload: { tenant_id: 't', even: i % 2 === 0 ? 'yes' : 'no' },
    }));
    await index.upsert('c', points);
    await index.delete(
      'c',
      points.slice(0, 50).map((p) => p.id),
    );
    await index.upsert('c', [{ id: 'late', vector: [1, 0, 0.5], payload: { tenant_id: 't', even: 'yes' } }]);
    const query = { vector: [1, 0, 0.5], limit: 7, filter: { tenant_id: 't', even: 'yes' } };
    const hits = await index.search('c', query);
    // Exhaustive order computed independently: the same points sorted by cosine, then id.
    const cos = (v: number[]) => (v[0]! + 0.25) / (Math.hypot(...v) * Math.hypot(1, 0, 0.5));
    const expected = [
      ...points.slice(50),
      { id: 'late', vector: [1, 0, 0.5], payload: { tenant_id: 't', even: 'yes' } },
    ]
      .filter((p) => p.payload.even === 'yes')
      .map((p) => ({ id: p.id, score: cos(p.vector) }))
      .sort((a, b) => (Math.abs(b.score - a.score) > 1e-6 ? b.score - a.score : a.id < b.id ? -1 : 1))
      .slice(0, 7)
      .map((h) => h.id);
    expect(hits.map((h) => h.id)).toEqual(expected);
    expect(await index.count('c', { tenant_id: 't' })).toBe(251);
  });

  it('a point upserted under another tenant leaves the first tenant', async () => {
    const index = createMemoryVectorIndex();
    await index.ensureCollection('c', 2);
    await index.upsert('c', [{ id: 'p', vector: [1, 0], payload: { tenant_id: 'a' } }]);
    await index.upsert('c', [{ id: 'p', vector: [1, 0], payload: { tenant_id: 'b' } }]);
    expect(await index.search('c', { vector: [1, 0], limit: 5, filter: { tenant_id: 'a' } })).toEqual([]);
    expect(
      (await index.search('c', { vector: [1, 0], limit: 5, filter: { tenant_id: 'b' } })).map((h) => h.id),
    ).toEqual(['p']);
  });
});

describe('dot-product kernel', () => {
  it('WebAssembly SIMD and the JavaScript loop agree, before and after growing', async () => {
    const { createDotStore } = await import('./dot-kernel');
    const d = 64;
    let simd = createDotStore(d, 4, true);
    let js = createDotStore(d, 4, false);
    expect(simd.constructor.name).toBe('SimdStore');
    expect(js.constructor.name).toBe('JsStore');
    let seed = 1;
    const next = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const fill = (slot: number) => {
      const v = Float32Array.from({ length: d }, next);
      simd.set(slot, v);
      js.set(slot, v);
    };
    for (let s = 0; s < 4; s += 1) fill(s);
    simd = simd.grow(40);
    js = js.grow(40);
    for (let s = 4; s < 37; s += 1) fill(s);
    const query = Float32Array.from({ length: d }, next);
    const a = Array.from(simd.dots(query, 37));
    const b = Array.from(js.dots(query, 37));
    expect(a).toHaveLength(37);
    a.forEach((x, k) => expect(x).toBeCloseTo(b[k]!, 4));
    expect(Array.from(simd.get(36))).toEqual(Array.from(js.get(36)));
  });
});

describe('memory vector index persisted: another dimension and dropped collections', () => {
  it('a persisted collection of another dimension is refused with the typed mismatch error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-vectors-'));
    const first = createMemoryVectorIndex({ dir });
    await first.ensureCollection('kg_nodes_m_d2', 2);
    await first.upsert('kg_nodes_m_d2', [{ id: 'a', vector: [1, 0], payload: { tenant_id: 't' } }]);
    const err = await createMemoryVectorIndex({ dir })
      .ensureCollection('kg_nodes_m_d2', 3)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(VectorCollectionMismatchError);
    expect(err).toMatchObject({ collection: 'kg_nodes_m_d2', setting: 'size' });
    expect((err as Error).message).toMatch(/2 dimensions, not 3/);
    // The refused collection keeps its point.
    const again = createMemoryVectorIndex({ dir });
    await again.ensureCollection('kg_nodes_m_d2', 2);
    expect(await again.count('kg_nodes_m_d2', { tenant_id: 't' })).toBe(1);
  });

  it('lists the collections persisted in the folder and drops one with its file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-vectors-'));
    const first = createMemoryVectorIndex({ dir });
    await first.ensureCollection('old', 2);
    await first.ensureCollection('new', 3);
    const second = createMemoryVectorIndex({ dir });
    expect((await second.collections()).sort()).toEqual(['new', 'old']);
    await second.dropCollection('old');
    expect(readdirSync(dir).filter((f) => f.endsWith('.vlog'))).toEqual(['new.vlog']);
    expect(await createMemoryVectorIndex({ dir }).collections()).toEqual(['new']);
  });
});
