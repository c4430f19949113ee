import { describe, expect, it } from 'vitest';
import { describeVectorIndexContract } from './contract';
import { createMemoryVectorIndex } from './memory';

describeVectorIndexContract('memory', async () => createMemoryVectorIndex());

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
