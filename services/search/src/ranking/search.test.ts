import { describe, expect, it } from 'vitest';
import { loadConfig } from '@kg/config';
import { createMemoryVectorIndex } from '@kg/vectors';
import { testEmbedder } from '../testing';
import { directEmbedder } from '../tenant-embedder';
import { nodesCollection } from '../indexing/indexer';
import { rankingEnv } from '../config';
import { z } from 'zod';
import { SEMANTIC_WEIGHT } from './fusion';
import { createRanker, vectorFilter } from './search';

const tenant = 'tnt_01jd8x6q1bf5r3v2m9w7k4t0zd';

async function rankerWith(semanticWeight?: number) {
  const embedder = testEmbedder();
  const vectors = createMemoryVectorIndex();
  const collection = nodesCollection(embedder.model, embedder.dimensions);
  await vectors.ensureCollection(collection, embedder.dimensions);
  const texts = { a: 'kettle boiling water', b: 'espresso grinder beans', c: 'espresso beans roast' };
  for (const [id, text] of Object.entries(texts)) {
    const [v] = await embedder.embed([text], 'passage');
    await vectors.upsert(collection, [
      { id, vector: Array.from(v!), payload: { tenant_id: tenant, model: embedder.model } },
    ]);
  }
  return createRanker({
    vectors,
    embedder: directEmbedder(embedder),
    // The keyword side prefers a, then c; the semantic side prefers b, then c.
    keyword: async () => [
      { id: 'a', score: 9 },
      { id: 'c', score: 4 },
    ],
    ...(semanticWeight !== undefined ? { semanticWeight } : {}),
  });
}

describe('hybrid ranking weight', () => {
  it('defaults to SEMANTIC_WEIGHT and follows the configured weight', async () => {
    expect((await rankerWith()).semanticWeight).toBe(SEMANTIC_WEIGHT);
    const query = 'espresso grinder beans';
    expect((await (await rankerWith(0)).hybrid(tenant, query, {}))[0]!.id).toBe('a');
    expect((await (await rankerWith(1)).hybrid(tenant, query, {}))[0]!.id).toBe('b');
    const sides = await (await rankerWith()).hybridSides(tenant, query, {});
    expect(sides.keyword.map((h) => h.id)).toEqual(['a', 'c']);
    expect(sides.semantic[0]!.id).toBe('b');
  });

  it('HYBRID_SEMANTIC_WEIGHT is read as a number in [0, 1]', () => {
    const schema = z.object(rankingEnv);
    expect(loadConfig('search', schema, {}).HYBRID_SEMANTIC_WEIGHT).toBe(SEMANTIC_WEIGHT);
    expect(loadConfig('search', schema, { HYBRID_SEMANTIC_WEIGHT: '0.4' }).HYBRID_SEMANTIC_WEIGHT).toBe(0.4);
    expect(() => loadConfig('search', schema, { HYBRID_SEMANTIC_WEIGHT: '1.5' })).toThrow(/HYBRID_SEMANTIC_WEIGHT/);
  });
});

describe('vector filter', () => {
  it('pushes every request filter down to the index, source_capture_id included', () => {
    expect(vectorFilter(tenant, 'm', {})).toEqual({ tenant_id: tenant, model: 'm' });
    expect(
      vectorFilter(tenant, 'm', {
        status: 'raw',
        para_item_id: 'para_1',
        orphan: false,
        source_capture_id: 'cap_01jd8x6q1bf5r3v2m9w7k4t0za',
      }),
    ).toEqual({
      tenant_id: tenant,
      model: 'm',
      status: 'raw',
      para_item_ids: 'para_1',
      orphan: 'false',
      source_capture_id: 'cap_01jd8x6q1bf5r3v2m9w7k4t0za',
    });
  });
});
