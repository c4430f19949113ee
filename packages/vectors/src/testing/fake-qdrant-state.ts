/**
 * The Qdrant semantics the fake serves: collections of points with cosine scoring
 * over normalised float32 vectors, payload filters (must / should / must_not with
 * `match.value`, nested filters) and exact counts. Bodies arrive already checked
 * against the OpenAPI document, so handlers read them by shape.
 */
type Json = Record<string, unknown>;
type Payload = Record<string, unknown>;

interface Point {
  id: string | number;
  vector: Float32Array;
  payload: Payload;
  version: number;
}

interface Collection {
  size: number;
  distance: string;
  /** As given at creation over Qdrant 1.18's defaults (GET /collections/{name} lists them). */
  onDiskPayload: boolean;
  hnsw: Json;
  points: Map<string, Point>;
  /** Field name → the object form of its schema, or undefined when created with the short form. */
  indexes: Map<string, { type: string; params: Json | undefined }>;
  operations: number;
}

export interface Reply {
  status: number;
  body: unknown;
  contentType?: string;
}

/** Status + Qdrant's error envelope; thrown by handlers, turned into a reply. */
export class QdrantError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function createFakeQdrantState() {
  const collections = new Map<string, Collection>();

  const get = (name: string): Collection => {
    const c = collections.get(name);
    if (!c) throw new QdrantError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  };
  const updated = (c: Collection) => ({ operation_id: c.operations++, status: 'completed' });
  const normalise = (c: Collection, vector: number[]): Float32Array => {
    if (vector.length !== c.size) {
      throw new QdrantError(400, `Wrong input: Vector dimension error: expected dim: ${c.size}, got ${vector.length}`);
    }
    const norm = Math.hypot(...vector);
    return Float32Array.from(vector, (x) => (norm === 0 ? 0 : x / norm));
  };

  const handlers: Record<string, (name: string, body: Json) => unknown> = {
    'GET /collections': () => ({ collections: [...collections.keys()].map((name) => ({ name })) }),
    'GET /collections/{collection_name}/exists': (name) => ({ exists: collections.has(name) }),
    'GET /collections/{collection_name}': (name) => describe(get(name)),
    'PUT /collections/{collection_name}': (name, body) => {
      if (collections.has(name)) throw new QdrantError(409, `Wrong input: Collection \`${name}\` already exists!`);
      const vectors = body.vectors as Json;
      if (typeof vectors.size !== 'number')
        throw new QdrantError(400, 'fake: only a single unnamed vector is supported');
      collections.set(name, {
        size: vectors.size,
        distance: String(vectors.distance),
        onDiskPayload: (body.on_disk_payload as boolean | null | undefined) ?? true,
        hnsw: { ...HNSW_DEFAULTS, ...((body.hnsw_config as Json | null | undefined) ?? {}) },
        points: new Map(),
        indexes: new Map(),
        operations: 0,
      });
      return true;
    },
    'PUT /collections/{collection_name}/index': (name, body) => {
      const c = get(name);
      const schema = body.field_schema as string | Json;
      c.indexes.set(
        String(body.field_name),
        typeof schema === 'string'
          ? { type: schema, params: undefined }
          : { type: String(schema.type), params: schema },
      );
      return updated(c);
    },
    'PUT /collections/{collection_name}/points': (name, body) => {
      const c = get(name);
      if (!Array.isArray(body.points)) throw new QdrantError(400, 'fake: only the points-list form is supported');
      const points = (body.points as Json[]).map((p) => ({
        id: p.id as string | number,
        vector: normalise(c, p.vector as number[]),
        payload: (p.payload ?? {}) as Payload,
      }));
      const result = updated(c);
      for (const p of points) c.points.set(String(p.id), { ...p, version: result.operation_id });
      return result;
    },
    'POST /collections/{collection_name}/points/payload': (name, body) => {
      const c = get(name);
      if (!Array.isArray(body.points) || body.filter != null || body.key != null)
        throw new QdrantError(400, 'fake: only the points-list form is supported');
      const ids = (body.points as Array<string | number>).map(String);
      const missing = ids.find((id) => !c.points.has(id));
      if (missing !== undefined) throw new QdrantError(404, `Not found: No point with id ${missing} found`);
      const result = updated(c);
      for (const id of ids) {
        const p = c.points.get(id)!;
        c.points.set(id, {
          ...p,
          payload: { ...p.payload, ...(body.payload as Payload) },
          version: result.operation_id,
        });
      }
      return result;
    },
    'POST /collections/{collection_name}/points/delete': (name, body) => {
      const c = get(name);
      if (Array.isArray(body.points)) for (const id of body.points) c.points.delete(String(id));
      else for (const [key, p] of c.points) if (matches(body.filter as Json, p.payload)) c.points.delete(key);
      return updated(c);
    },
    'POST /collections/{collection_name}/points/query': (name, body) => {
      const c = get(name);
      if (!Array.isArray(body.query) || body.prefetch != null)
        throw new QdrantError(400, 'fake: only a dense vector query is supported');
      const query = normalise(c, body.query as number[]);
      const threshold = body.score_threshold as number | undefined;
      const hits = [...c.points.values()]
        .filter((p) => matches(body.filter as Json | undefined, p.payload))
        .map((p) => ({ p, score: Math.fround(p.vector.reduce((sum, x, i) => sum + x * (query[i] ?? 0), 0)) }))
        .filter((h) => threshold == null || h.score >= threshold)
        .sort((a, b) => b.score - a.score)
        .slice((body.offset as number | undefined) ?? 0)
        .slice(0, (body.limit as number | undefined) ?? 10);
      const withPayload = body.with_payload === true;
      return {
        points: hits.map(({ p, score }) => ({
          id: p.id,
          version: p.version,
          score,
          ...(withPayload ? { payload: p.payload } : {}),
        })),
      };
    },
    'DELETE /collections/{collection_name}': (name) => collections.delete(name),
    'POST /collections/{collection_name}/points/scroll': (name, body) => {
      const c = get(name);
      // Qdrant scrolls in id order; `offset` is the first id of the page (inclusive).
      const ordered = [...c.points.values()]
        .filter((p) => matches(body.filter as Json | undefined, p.payload))
        .sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
      const offset = body.offset == null ? undefined : String(body.offset as string | number);
      const start = offset === undefined ? 0 : ordered.findIndex((p) => String(p.id) >= offset);
      const limit = (body.limit as number | undefined) ?? 10;
      const page = start < 0 ? [] : ordered.slice(start, start + limit);
      const next = start < 0 ? undefined : ordered[start + limit];
      const keys = body.with_payload;
      const payloadOf = (p: Payload) =>
        keys === true ? p : Array.isArray(keys) ? Object.fromEntries(keys.map((k) => [k, p[String(k)]])) : undefined;
      return {
        points: page.map((p) => ({
          id: p.id,
          ...(payloadOf(p.payload) ? { payload: payloadOf(p.payload) } : {}),
        })),
        next_page_offset: next ? next.id : null,
      };
    },
    'POST /collections/{collection_name}/points/count': (name, body) => {
      let count = 0;
      for (const p of get(name).points.values()) if (matches(body.filter as Json | undefined, p.payload)) count += 1;
      return { count };
    },
  };

  return {
    /** Handles one declared operation; undefined when the fake does not implement it. */
    handle(operation: string, name: string, body: Json): Reply | undefined {
      if (operation === 'GET /readyz') return { status: 200, body: 'all shards are ready', contentType: 'text/plain' };
      const handler = handlers[operation];
      if (!handler) return undefined;
      const started = performance.now();
      const time = () => (performance.now() - started) / 1000;
      try {
        return { status: 200, body: { result: handler(name, body), status: 'ok', time: time() } };
      } catch (err) {
        if (!(err instanceof QdrantError)) throw err;
        return { status: err.status, body: { status: { error: err.message }, time: time() } };
      }
    },
  };
}

/** Qdrant 1.18's defaults (its config file), as it lists them for a collection created without hnsw_config. */
const HNSW_DEFAULTS: Json = {
  m: 16,
  ef_construct: 100,
  full_scan_threshold: 10000,
  max_indexing_threads: 0,
  on_disk: false,
};

/** Qdrant counts a point in a keyword index when its value holds a string (null, [], numbers: not). */
const keywordValue = (v: unknown) =>
  typeof v === 'string' || (Array.isArray(v) && v.some((x) => typeof x === 'string'));

function describe(c: Collection): Json {
  const indexed = (field: string) => [...c.points.values()].filter((p) => keywordValue(p.payload[field])).length;
  return {
    status: 'green',
    optimizer_status: 'ok',
    segments_count: 1,
    points_count: c.points.size,
    indexed_vectors_count: 0,
    config: {
      params: {
        vectors: { size: c.size, distance: c.distance },
        shard_number: 1,
        replication_factor: 1,
        write_consistency_factor: 1,
        on_disk_payload: c.onDiskPayload,
      },
      hnsw_config: c.hnsw,
      optimizer_config: { default_segment_number: 0, flush_interval_sec: 5 },
    },
    payload_schema: Object.fromEntries(
      [...c.indexes].map(([field, { type, params }]) => [
        field,
        { data_type: type, ...(params ? { params } : {}), points: indexed(field) },
      ]),
    ),
  };
}

/** Filter semantics for the subset the adapter sends; anything else is a 400. */
function matches(filter: Json | null | undefined, payload: Payload): boolean {
  if (!filter) return true;
  const list = (v: unknown): Json[] => (v == null ? [] : Array.isArray(v) ? (v as Json[]) : [v as Json]);
  const should = list(filter.should);
  if (filter.min_should != null) throw new QdrantError(400, 'fake: min_should is not supported');
  return (
    list(filter.must).every((c) => condition(c, payload)) &&
    (should.length === 0 || should.some((c) => condition(c, payload))) &&
    !list(filter.must_not).some((c) => condition(c, payload))
  );
}

function condition(c: Json, payload: Payload): boolean {
  if (!('key' in c)) return matches(c, payload);
  const match = c.match as Json | undefined;
  if (!match || !('value' in match) || Object.keys(c).some((k) => k !== 'key' && k !== 'match')) {
    throw new QdrantError(400, 'fake: only match.value field conditions are supported');
  }
  const field = payload[String(c.key)];
  return Array.isArray(field) ? field.includes(match.value) : field === match.value;
}
