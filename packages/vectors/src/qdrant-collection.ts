import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import { VectorCollectionMismatchError } from './errors';
import { TENANT_KEY } from './rules';

/** Runs one client call, turning its failure into the adapter's errors (qdrant.ts `call`). */
export type Call = <T>(operation: string, run: () => Promise<T>) => Promise<T>;

/**
 * A new collection, laid out the way Qdrant recommends for many tenants in one collection:
 * no global HNSW graph (`m: 0`) but one per tenant (`payload_m: 16` with the tenant index
 * below), since every query is filtered by tenant; payloads on disk (only what a query
 * returns is read; indexed keys stay in memory for filtering).
 */
export const collectionBody = (dimensions: number): Schemas['CreateCollection'] => ({
  vectors: { size: dimensions, distance: 'Cosine' },
  hnsw_config: { m: 0, payload_m: 16 },
  on_disk_payload: true,
});

/**
 * The payload indexes: `tenant_id` as Qdrant's tenant index (`is_tenant` stores each tenant's
 * points together and builds its graph), every other filter key a plain keyword index without
 * graph links of its own (`enable_hnsw: false`; the tenant's graph serves those filters).
 */
export function indexSchema(key: string): Schemas['KeywordIndexParams'] {
  return key === TENANT_KEY ? { type: 'keyword', is_tenant: true } : { type: 'keyword', enable_hnsw: false };
}

/**
 * Creates the collection when missing and the payload indexes that are missing, so calling
 * it at every start (from every replica at once) converges on one layout. An existing
 * collection with another vector size or distance is refused (VectorCollectionMismatchError),
 * never reused with mixed vectors.
 */
export async function ensureQdrantCollection(
  client: QdrantClient,
  call: Call,
  name: string,
  dimensions: number,
  filterKeys: readonly string[],
): Promise<void> {
  const exists = async () => (await call('collection exists', () => client.collectionExists(name))).exists;
  if (!(await exists())) {
    try {
      await call('create collection', () => client.createCollection(name, collectionBody(dimensions)));
    } catch (err) {
      if (!(await exists())) throw err; // else another replica won the race: check its shape below
    }
  }
  const info = await call('get collection', () => client.getCollection(name));
  assertShape(name, info.config.params.vectors, dimensions);
  for (const key of [TENANT_KEY, ...filterKeys.filter((k) => k !== TENANT_KEY)]) {
    // An index made with the short form (`field_schema: "keyword"`) is listed without params.
    const present = info.payload_schema[key];
    const params = present?.params && 'is_tenant' in present.params ? present.params : undefined;
    if (present?.data_type === 'keyword' && (key !== TENANT_KEY || params?.is_tenant === true)) continue;
    // Creating an index over an existing one of another kind replaces it (the points stay).
    await call(`create ${key} index`, () =>
      client.createPayloadIndex(name, { field_name: key, field_schema: indexSchema(key), wait: true }),
    );
  }
}

function assertShape(name: string, vectors: Schemas['VectorsConfig'] | undefined, dimensions: number): void {
  const params = vectors && 'size' in vectors && typeof vectors.size === 'number' ? vectors : undefined;
  const advice =
    'it is never reused with other vectors: delete it (search makes it anew at its next start and embeds every node again) or point QDRANT_URL elsewhere';
  if (!params) {
    throw new VectorCollectionMismatchError(
      name,
      'layout',
      `vectors: Qdrant collection ${name} has named vectors; expected one unnamed vector of ${dimensions} dimensions, Cosine; ${advice}`,
    );
  }
  if (params.size !== dimensions || params.distance !== 'Cosine') {
    const setting = params.size !== dimensions ? 'size' : 'distance';
    throw new VectorCollectionMismatchError(
      name,
      setting,
      `vectors: Qdrant collection ${name} exists with vector ${setting} ${setting === 'size' ? params.size : params.distance} ` +
        `(${params.size} dimensions, ${params.distance}); expected ${dimensions} dimensions, Cosine; ${advice}`,
    );
  }
}
