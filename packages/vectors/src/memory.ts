import type { VectorHit, VectorIndex, VectorPayload } from './port';
import { assertCollectionOptions, assertFilter, assertPayloadPatch, assertPoints, assertQuery } from './rules';
import { CollectionLog, listLogs, type LoggedPoint } from './memory-log';
import { Segment } from './segment';
import { VectorCollectionMismatchError } from './errors';

interface Collection {
  dimensions: number;
  /** One segment per tenant: every query is filtered to one tenant, so it scans only that tenant's points. */
  tenants: Map<string, Segment>;
  /** The tenant each point id is stored under. */
  owner: Map<string, string>;
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
 * In-process vector index for the one-process mode and tests: exact (brute-force) cosine
 * over each tenant's contiguous vectors (segment.ts, WebAssembly SIMD dot products from
 * dot-kernel.ts), persisted under `options.dir` when given. A query scans its tenant's points
 * once (100,000 points of 384 dimensions: see docs/benchmarks.md "Search speed"); beyond a few
 * hundred thousand points per tenant, use Qdrant.
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

  function* live(collection: Collection): Generator<LoggedPoint> {
    for (const segment of collection.tenants.values())
      for (let slot = 0; slot < segment.ids.length; slot += 1) {
        const id = segment.ids[slot];
        if (id != null) yield { id, vector: segment.vector(slot), payload: segment.payloads[slot]! };
      }
  }

  const compact = (collection: Collection): void =>
    collection.log?.maybeCompact(collection.dimensions, live(collection), collection.owner.size);

  const put = (collection: Collection, id: string, vector: Float32Array, payload: VectorPayload): void => {
    const previous = collection.owner.get(id);
    if (previous !== undefined && previous !== payload.tenant_id) collection.tenants.get(previous)?.remove(id);
    let segment = collection.tenants.get(payload.tenant_id);
    if (!segment) {
      segment = new Segment(collection.dimensions);
      collection.tenants.set(payload.tenant_id, segment);
    }
    segment.put(id, vector, payload);
    collection.owner.set(id, payload.tenant_id);
  };

  const remove = (collection: Collection, id: string): void => {
    const tenant = collection.owner.get(id);
    if (tenant === undefined) return;
    const segment = collection.tenants.get(tenant)!;
    segment.remove(id);
    if (segment.size === 0) collection.tenants.delete(tenant);
    collection.owner.delete(id);
  };

  const empty = (dimensions: number, log?: CollectionLog): Collection => ({
    dimensions,
    tenants: new Map(),
    owner: new Map(),
    ...(log ? { log } : {}),
  });

  return {
    kind: 'memory',
    async ensureCollection(name, dimensions, collectionOptions) {
      if (!Number.isInteger(dimensions) || dimensions < 1)
        throw new Error('vectors: dimensions must be a positive integer');
      assertCollectionOptions(collectionOptions);
      let existing = collections.get(name);
      if (!existing && options.dir !== undefined) {
        const log = new CollectionLog(options.dir, name);
        const loaded = log.load();
        if (loaded) {
          existing = empty(loaded.dimensions, log);
          for (const p of loaded.points.values()) put(existing, p.id, p.vector, p.payload);
        } else {
          log.create(dimensions);
          existing = empty(dimensions, log);
        }
        collections.set(name, existing);
      }
      if (existing && existing.dimensions !== dimensions) {
        throw new VectorCollectionMismatchError(
          name,
          'size',
          `vectors: collection ${name} exists with ${existing.dimensions} dimensions, not ${dimensions}; ` +
            'it is never reused with other vectors: delete its file (search makes it anew at its next start and embeds every node again)',
        );
      }
      if (!existing) collections.set(name, empty(dimensions));
    },
    async upsert(name, points) {
      const collection = get(name);
      assertPoints(points);
      // Convert everything first so a bad point leaves the collection untouched.
      const stored = points.map((point): LoggedPoint => ({
        id: point.id,
        vector: toFloat32(name, collection.dimensions, point.vector),
        payload: structuredClone(point.payload),
      }));
      collection.log?.upsert(stored);
      for (const point of stored) put(collection, point.id, point.vector, point.payload);
      compact(collection);
    },
    async setPayload(name, id, payload) {
      const collection = get(name);
      assertPayloadPatch(id, payload);
      const tenant = collection.owner.get(id);
      const segment = tenant === undefined ? undefined : collection.tenants.get(tenant);
      const slot = segment?.slotOf(id);
      if (!segment || slot === undefined) throw new Error(`vectors: point ${id} does not exist in ${name}`);
      const merged = { ...segment.payloads[slot]!, ...structuredClone(payload) };
      collection.log?.upsert([{ id, vector: segment.vector(slot).slice(), payload: merged }]);
      segment.setPayload(id, merged);
      compact(collection);
    },
    async delete(name, ids) {
      const collection = get(name);
      collection.log?.delete(ids.filter((id) => collection.owner.has(id)));
      for (const id of ids) remove(collection, id);
      compact(collection);
    },
    async deleteByFilter(name, filter) {
      assertFilter(filter);
      const collection = get(name);
      const segment = collection.tenants.get(filter.tenant_id);
      const ids = segment ? [...segment.matching(filter)].map((slot) => segment.ids[slot]!) : [];
      collection.log?.delete(ids);
      for (const id of ids) remove(collection, id);
      compact(collection);
    },
    async search(name, query) {
      assertQuery(query);
      const collection = get(name);
      const vector = toFloat32(name, collection.dimensions, query.vector);
      const segment = collection.tenants.get(query.filter.tenant_id);
      if (!segment) return [];
      return segment
        .search(vector, query.filter, query.limit, query.scoreThreshold)
        .map(({ slot, score }): VectorHit => ({
          id: segment.ids[slot]!,
          score,
          payload: structuredClone(segment.payloads[slot]!),
        }));
    },
    async count(name, filter) {
      assertFilter(filter);
      const segment = get(name).tenants.get(filter.tenant_id);
      let n = 0;
      if (segment) for (const _ of segment.matching(filter)) n += 1;
      return n;
    },
    async ids(name, filter) {
      assertFilter(filter);
      const segment = get(name).tenants.get(filter.tenant_id);
      return segment ? [...segment.matching(filter)].map((slot) => segment.ids[slot]!) : [];
    },
    async collections() {
      const names = new Set(collections.keys());
      if (options.dir !== undefined) for (const name of listLogs(options.dir)) names.add(name);
      return [...names].sort();
    },
    async dropCollection(name) {
      collections.delete(name);
      if (options.dir !== undefined) new CollectionLog(options.dir, name).remove();
    },
    async ready() {
      return true;
    },
  };
}
