import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import type { VectorFilter, VectorHit, VectorIndex, VectorPayload } from './port';
import { toPointId } from './point-id';
import { describeQdrantError, unavailableFromQdrant } from './errors';
import { ensureQdrantCollection } from './qdrant-collection';
import {
  RESERVED_ID_KEY,
  TENANT_KEY,
  assertCollectionOptions,
  assertFilter,
  assertPayloadPatch,
  assertPoints,
  assertQuery,
  byScoreThenId,
} from './rules';

export interface QdrantVectorOptions {
  /** `QDRANT_URL`, e.g. `http://qdrant:6333`; parsed by the caller's config. */
  url: string;
  /** `QDRANT_API_KEY`, sent as the `api-key` header. */
  apiKey?: string;
  /** Per-request timeout; the client's default is five minutes. */
  timeoutMs?: number;
}

/**
 * Qdrant adapter for the distributed mode. Point ids are UUIDs derived from our ids
 * (see point-id.ts); the original id travels in the payload as `_id` and is what
 * search returns. Every read and filter-delete carries a `tenant_id` must-match.
 */
export function createQdrantVectorIndex(options: QdrantVectorOptions): VectorIndex {
  const client = new QdrantClient({
    url: options.url,
    apiKey: options.apiKey,
    timeout: options.timeoutMs ?? 10_000,
    checkCompatibility: false,
  });

  return {
    kind: 'qdrant',
    async ensureCollection(name, dimensions, collectionOptions) {
      if (!Number.isInteger(dimensions) || dimensions < 1)
        throw new Error('vectors: dimensions must be a positive integer');
      assertCollectionOptions(collectionOptions);
      await ensureQdrantCollection(client, call, name, dimensions, collectionOptions?.filterKeys ?? []);
    },
    async upsert(name, points) {
      assertPoints(points);
      if (points.length === 0) return;
      const body = points.map((p) => ({
        id: toPointId(p.id),
        vector: p.vector,
        payload: { ...p.payload, [RESERVED_ID_KEY]: p.id },
      }));
      await call('upsert', () => client.upsert(name, { wait: true, points: body }));
    },
    async setPayload(name, id, payload) {
      assertPayloadPatch(id, payload);
      // POST .../points/payload merges the given keys (PUT would drop the others, `_id` included);
      // Qdrant answers 404 for a point id it does not hold.
      await call('set payload', () => client.setPayload(name, { wait: true, payload, points: [toPointId(id)] }));
    },
    async delete(name, ids) {
      if (ids.length === 0) return;
      await call('delete', () => client.delete(name, { wait: true, points: ids.map(toPointId) }));
    },
    async deleteByFilter(name, filter) {
      assertFilter(filter);
      await call('delete by filter', () => client.delete(name, { wait: true, filter: toQdrantFilter(filter) }));
    },
    async search(name, query) {
      assertQuery(query);
      const result = await call('query', () =>
        client.query(name, {
          query: query.vector,
          filter: toQdrantFilter(query.filter),
          limit: query.limit,
          score_threshold: query.scoreThreshold,
          with_payload: true,
          with_vector: false,
        }),
      );
      // Qdrant orders by score only; apply the port's id tie-break.
      return result.points.map(toHit).sort(byScoreThenId);
    },
    async count(name, filter) {
      assertFilter(filter);
      const result = await call('count', () => client.count(name, { filter: toQdrantFilter(filter), exact: true }));
      return result.count;
    },
    async ids(name, filter) {
      assertFilter(filter);
      const ids: string[] = [];
      // Scrolls in pages of SCROLL_PAGE points, carrying only the original id (`_id`).
      let offset: Schemas['ExtendedPointId'] | null | undefined;
      do {
        const page = await call('scroll', () =>
          client.scroll(name, {
            filter: toQdrantFilter(filter),
            limit: SCROLL_PAGE,
            with_payload: [RESERVED_ID_KEY],
            with_vector: false,
            ...(offset != null ? { offset } : {}),
          }),
        );
        for (const point of page.points) {
          const original = point.payload?.[RESERVED_ID_KEY];
          ids.push(typeof original === 'string' ? original : String(point.id));
        }
        offset = page.next_page_offset as Schemas['ExtendedPointId'] | null | undefined;
      } while (offset != null);
      return ids;
    },
    async collections() {
      const result = await call('list collections', () => client.getCollections());
      return result.collections.map((c) => c.name).sort();
    },
    async dropCollection(name) {
      // Qdrant answers true, or false for a collection it does not hold: either way it is gone.
      await call('delete collection', () => client.deleteCollection(name));
    },
    async ready() {
      try {
        await client.api().readyz({});
        // /readyz answers without the key: a cheap call that needs it tells a wrong QDRANT_API_KEY.
        await client.getCollections();
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** Points a scroll page carries (ids re-index lists). */
const SCROLL_PAGE = 1000;

/** `{ tenant_id, kind }` → `must: [tenant_id match, kind match]`, tenant first. */
function toQdrantFilter(filter: VectorFilter): Schemas['Filter'] {
  const { tenant_id, ...rest } = filter;
  const must = [{ key: TENANT_KEY, match: { value: tenant_id } }];
  for (const [key, value] of Object.entries(rest)) must.push({ key, match: { value } });
  return { must };
}

function toHit(point: Schemas['ScoredPoint']): VectorHit {
  const { [RESERVED_ID_KEY]: original, ...payload } = point.payload ?? {};
  return {
    id: typeof original === 'string' ? original : String(point.id),
    score: point.score,
    payload: payload as VectorPayload,
  };
}

/**
 * Runs one client call. A failure that means "Qdrant cannot answer now" (unreachable, timeout,
 * busy, refused key) becomes VectorIndexUnavailableError (503 with Retry-After to callers);
 * any other keeps Qdrant's own message (e.g. the dimension error) in a plain Error.
 */
async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw (
      unavailableFromQdrant(operation, err) ??
      new Error(`vectors: qdrant ${operation} failed: ${describeQdrantError(err)}`, { cause: err })
    );
  }
}
