/** A payload value both adapters store and return unchanged (null: known to be absent; never matches a filter). */
export type PayloadValue = string | number | boolean | string[] | null;

/** Every point belongs to exactly one tenant; `_id` is reserved by the adapters. */
export type VectorPayload = { tenant_id: string } & Record<string, PayloadValue>;

/**
 * Exact-match filter. `tenant_id` is required by the type, so a query across tenants
 * cannot be written; every adapter also rejects an empty tenant at runtime. A key
 * matches a string field equal to the value, or a string[] field containing it.
 */
export type VectorFilter = { tenant_id: string } & Record<string, string>;

export interface VectorPoint {
  /** Our id, usually a TypeID such as `node_01jd8x6q1bf5r3v2m9w7k4t0za`; returned exactly. */
  id: string;
  vector: number[];
  payload: VectorPayload;
}

export interface VectorQuery {
  vector: number[];
  /** Positive integer. */
  limit: number;
  filter: VectorFilter;
  /** Keep only hits with `score >= scoreThreshold` (cosine similarity, -1..1). */
  scoreThreshold?: number;
}

export interface VectorHit {
  id: string;
  /** Cosine similarity in [-1, 1]. */
  score: number;
  payload: VectorPayload;
}

export interface CollectionOptions {
  /**
   * Payload keys that filters use besides `tenant_id` (string or string[] values). Qdrant gets
   * a keyword index on each (created when missing, at every ensureCollection); the in-process
   * index filters every key alike and only checks the names.
   */
  filterKeys?: readonly string[];
}

/**
 * Vector store port used by semantic search. Collections use cosine distance.
 * Adapters: in-process brute force (embedded mode) and Qdrant (distributed mode).
 */
export interface VectorIndex {
  readonly kind: 'memory' | 'qdrant';
  /**
   * Creates the collection when missing, with the payload indexes its filters need; throws
   * when it exists with other dimensions (Qdrant: or another distance), never mixing vectors.
   * Idempotent, and safe to call from several processes at once.
   */
  ensureCollection(name: string, dimensions: number, options?: CollectionOptions): Promise<void>;
  /** Inserts or replaces points by id (vector and payload together). */
  upsert(collection: string, points: VectorPoint[]): Promise<void>;
  /**
   * Merges `payload`'s keys into the stored payload of point `id`, leaving its vector and other
   * keys unchanged (no re-embedding). `tenant_id` and `_id` cannot be set this way. Throws when
   * the point does not exist.
   */
  setPayload(collection: string, id: string, payload: Record<string, PayloadValue>): Promise<void>;
  delete(collection: string, ids: string[]): Promise<void>;
  deleteByFilter(collection: string, filter: VectorFilter): Promise<void>;
  /** Hits ordered by score descending, then id ascending. */
  search(collection: string, query: VectorQuery): Promise<VectorHit[]>;
  count(collection: string, filter: VectorFilter): Promise<number>;
  /**
   * The ids of every point matching `filter` (one tenant's, like every read), in no set order:
   * what a re-index compares with the nodes it rebuilds to remove stray vectors.
   */
  ids(collection: string, filter: VectorFilter): Promise<string[]>;
  /** The names of the collections the index holds (the in-process index: also those persisted under its folder). */
  collections(): Promise<string[]>;
  /** Deletes a collection and its points (persisted ones too); a missing one is no error. */
  dropCollection(collection: string): Promise<void>;
  ready(): Promise<boolean>;
}
