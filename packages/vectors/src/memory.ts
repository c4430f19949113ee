import type { VectorFilter, VectorHit, VectorIndex, VectorPayload } from './port';
import { assertFilter, assertPoints, assertQuery, byScoreThenId, matchesValue } from './rules';

interface StoredPoint {
  id: string;
  vector: Float32Array;
  norm: number;
  payload: VectorPayload;
}

interface Collection {
  dimensions: number;
  points: Map<string, StoredPoint>;
}

/**
 * In-process vector index for the one-process mode and tests: brute-force cosine over
 * Float32Arrays, one Map per collection. Fine for thousands of points, not millions.
 */
export function createMemoryVectorIndex(): VectorIndex {
  const collections = new Map<string, Collection>();

  const get = (name: string): Collection => {
    const collection = collections.get(name);
    if (!collection) throw new Error(`vectors: collection ${name} does not exist`);
    return collection;
  };

  const toFloat32 = (collection: string, dimensions: number, vector: number[]): Float32Array => {
    if (vector.length !== dimensions) {
      throw new Error(`vectors: dimension mismatch in ${collection}: expected ${dimensions}, got ${vector.length}`);
    }
    return Float32Array.from(vector);
  };

  const matches = (payload: VectorPayload, filter: VectorFilter): boolean =>
    Object.entries(filter).every(([key, value]) => matchesValue(payload[key], value));

  return {
    kind: 'memory',
    async ensureCollection(name, dimensions) {
      if (!Number.isInteger(dimensions) || dimensions < 1)
        throw new Error('vectors: dimensions must be a positive integer');
      const existing = collections.get(name);
      if (existing && existing.dimensions !== dimensions) {
        throw new Error(`vectors: collection ${name} exists with ${existing.dimensions} dimensions, not ${dimensions}`);
      }
      if (!existing) collections.set(name, { dimensions, points: new Map() });
    },
    async upsert(name, points) {
      const collection = get(name);
      assertPoints(points);
      // Convert everything first so a bad point leaves the collection untouched.
      const stored = points.map((point): StoredPoint => {
        const vector = toFloat32(name, collection.dimensions, point.vector);
        return { id: point.id, vector, norm: magnitude(vector), payload: structuredClone(point.payload) };
      });
      for (const point of stored) collection.points.set(point.id, point);
    },
    async delete(name, ids) {
      const collection = get(name);
      for (const id of ids) collection.points.delete(id);
    },
    async deleteByFilter(name, filter) {
      assertFilter(filter);
      const collection = get(name);
      for (const [id, point] of collection.points) if (matches(point.payload, filter)) collection.points.delete(id);
    },
    async search(name, query) {
      assertQuery(query);
      const collection = get(name);
      const vector = toFloat32(name, collection.dimensions, query.vector);
      const norm = magnitude(vector);
      const hits: VectorHit[] = [];
      for (const point of collection.points.values()) {
        if (!matches(point.payload, query.filter)) continue;
        const score = cosine(vector, norm, point.vector, point.norm);
        if (query.scoreThreshold !== undefined && score < query.scoreThreshold) continue;
        hits.push({ id: point.id, score, payload: point.payload });
      }
      return hits
        .sort(byScoreThenId)
        .slice(0, query.limit)
        .map((hit) => ({ ...hit, payload: structuredClone(hit.payload) }));
    },
    async count(name, filter) {
      assertFilter(filter);
      let n = 0;
      for (const point of get(name).points.values()) if (matches(point.payload, filter)) n += 1;
      return n;
    },
    async ready() {
      return true;
    },
  };
}

function magnitude(v: Float32Array): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}

/** Cosine similarity clamped to [-1, 1]; a zero vector scores 0 (as Qdrant does). */
function cosine(a: Float32Array, normA: number, b: Float32Array, normB: number): number {
  if (normA === 0 || normB === 0) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return Math.max(-1, Math.min(1, dot / (normA * normB)));
}
