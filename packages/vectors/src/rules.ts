import type { CollectionOptions, PayloadValue, VectorFilter, VectorHit, VectorPoint, VectorQuery } from './port';

/** Payload key the adapters reserve (the Qdrant adapter keeps the original id there). */
export const RESERVED_ID_KEY = '_id';

/** Payload key naming the tenant; every filter carries it. */
export const TENANT_KEY = 'tenant_id';

/** `filterKeys` name payload keys: non-empty, never the reserved key. */
export function assertCollectionOptions(options: CollectionOptions | undefined): void {
  for (const key of options?.filterKeys ?? []) {
    if (typeof key !== 'string' || key === '') throw new Error('vectors: filterKeys must be non-empty strings');
    if (key === RESERVED_ID_KEY) throw new Error(`vectors: payload key ${RESERVED_ID_KEY} is reserved`);
  }
}

/** Input checks shared by every adapter, so both reject the same calls the same way. */
export function assertFilter(filter: VectorFilter): void {
  if (typeof filter?.tenant_id !== 'string' || filter.tenant_id === '') {
    throw new Error('vectors: filter.tenant_id is required (a non-empty string)');
  }
  for (const [key, value] of Object.entries(filter)) {
    if (typeof value !== 'string') throw new Error(`vectors: filter.${key} must be a string`);
  }
}

export function assertPoints(points: VectorPoint[]): void {
  for (const point of points) {
    if (typeof point.id !== 'string' || point.id === '')
      throw new Error('vectors: point id must be a non-empty string');
    if (typeof point.payload?.tenant_id !== 'string' || point.payload.tenant_id === '') {
      throw new Error(`vectors: point ${point.id} needs payload.tenant_id`);
    }
    if (RESERVED_ID_KEY in point.payload) throw new Error(`vectors: payload key ${RESERVED_ID_KEY} is reserved`);
    if (!point.vector.every(Number.isFinite)) throw new Error(`vectors: point ${point.id} has a non-finite component`);
  }
}

/** A payload merge names one point and may not move it to another tenant or touch the reserved key. */
export function assertPayloadPatch(id: string, payload: Record<string, PayloadValue>): void {
  if (typeof id !== 'string' || id === '') throw new Error('vectors: point id must be a non-empty string');
  for (const key of ['tenant_id', RESERVED_ID_KEY])
    if (key in payload) throw new Error(`vectors: payload key ${key} cannot be set on a stored point`);
}

export function assertQuery(query: VectorQuery): void {
  assertFilter(query.filter);
  if (!Number.isInteger(query.limit) || query.limit < 1) throw new Error('vectors: limit must be a positive integer');
}

/** Qdrant semantics for `match: { value }`: equal scalar, or an array holding the value. */
export function matchesValue(field: PayloadValue | undefined, value: string): boolean {
  return Array.isArray(field) ? field.includes(value) : field === value;
}

/** Port order: score descending, then id ascending (code-unit order, not locale). */
export function byScoreThenId(a: VectorHit, b: VectorHit): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
