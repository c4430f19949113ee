import type { VectorFilter, VectorHit, VectorIndex, VectorPayload } from './port';
import { assertFilter, assertPoints, assertQuery, byScoreThenId, matchesValue } from './rules';
import { CollectionLog } from './memory-log';

interface StoredPoint {
  id: string;
  vector: Float32Array;
  norm: number;
  payload: VectorPayload;
}

interface Collection {
  dimensions: number;
  points: Map<string, StoredPoint>;
  log?: CollectionLog;
}

export interface MemoryVectorOptions {
  /**
   * Folder the collections persist to (one append-only log each, see memory-log.ts); a
   * collection found there is loaded by ensureCollection. Without it, nothing persists.
   */
  dir?: string;
}

/**
 * In-process vector index for the one-process mode and tests: brute-force cosine over
 * Float32Arrays, one Map per collection, persisted under `options.dir` when given. Fine for
 * thousands of points, not millions.
 */
export function createMemoryVectorIndex(options: MemoryVectorOptions = {}): VectorIndex {
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

  const compact = (collection: Collection): void =>
    collection.log?.maybeCompact(collection.dimensions, collection.points.values(), collection.points.size);

  const matches = (payload: VectorPayload, filter: VectorFilter): boolean =>
    Object.entries(filter).every(([key, value]) => matchesValue(payload[key], value));

  return {
    kind: 'memory',
    async ensureCollection(name, dimensions) {
      if (!Number.isInteger(dimensions) || dimensions < 1)
        throw new Error('vectors: dimensions must be a positive integer');
      let existing = collections.get(name);
      if (!existing && options.dir !== undefined) {
        const log = new CollectionLog(options.dir, name);
        const loaded = log.load();
        if (loaded) {
          const points = new Map<string, StoredPoint>();
          for (const p of loaded.points.values()) points.set(p.id, { ...p, norm: magnitude(p.vector) });
          existing = { dimensions: loaded.dimensions, points, log };
        } else {
          log.create(dimensions);
          existing = { dimensions, points: new Map(), log };
        }
        if (existing) collections.set(name, existing);
      }
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
      collection.log?.upsert(stored);
      for (const point of stored) collection.points.set(point.id, point);
      compact(collection);
    },
    async delete(name, ids) {
      const collection = get(name);
      collection.log?.delete(ids.filter((id) => collection.points.has(id)));
      for (const id of ids) collection.points.delete(id);
      compact(collection);
    },
    async deleteByFilter(name, filter) {
      assertFilter(filter);
      const collection = get(name);
      const ids = [...collection.points.values()].filter((p) => matches(p.payload, filter)).map((p) => p.id);
      collection.log?.delete(ids);
      for (const id of ids) collection.points.delete(id);
      compact(collection);
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
