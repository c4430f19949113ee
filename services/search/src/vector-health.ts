import type { Logger } from '@kg/logger';
import {
  isVectorIndexUnavailable,
  type CollectionOptions,
  type VectorIndex,
  type VectorIndexUnavailableError,
} from '@kg/vectors';

/**
 * Whether the vector index (Qdrant) answers, as the service's own calls find it. An outage is
 * logged once when it starts (the error's `diagnostic`: what failed and the setting to check)
 * and once when a call succeeds again; in between, semantic search answers 503 and hybrid
 * falls back to keyword (docs/API.md "When the vector index is unavailable").
 */
export interface VectorHealth {
  /** The error that started the outage in progress, or null while the index answers. */
  readonly outage: VectorIndexUnavailableError | null;
  failed(err: VectorIndexUnavailableError): void;
  answered(): void;
}

export function createVectorHealth(logger: Logger): VectorHealth {
  let outage: VectorIndexUnavailableError | null = null;
  let since = 0;
  return {
    get outage() {
      return outage;
    },
    failed(err) {
      if (outage) return;
      outage = err;
      since = Date.now();
      logger.warn(
        { reason: err.reason, diagnostic: err.diagnostic },
        'search: the vector index is unavailable; semantic search answers 503 and hybrid falls back to keyword until it answers again',
      );
    },
    answered() {
      if (!outage) return;
      logger.info(
        { reason: outage.reason, downForMs: Date.now() - since },
        'search: the vector index answers again; semantic search is back',
      );
      outage = null;
    },
  };
}

/** `vectors` with every call's outcome reported to `health` (ready() is a probe and reports nothing). */
export function watchVectors(vectors: VectorIndex, health: VectorHealth): VectorIndex {
  const watch =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const result = await call(...args);
        health.answered();
        return result;
      } catch (err) {
        if (isVectorIndexUnavailable(err)) health.failed(err);
        throw err;
      }
    };
  return {
    kind: vectors.kind,
    ensureCollection: watch(vectors.ensureCollection.bind(vectors)),
    upsert: watch(vectors.upsert.bind(vectors)),
    setPayload: watch(vectors.setPayload.bind(vectors)),
    delete: watch(vectors.delete.bind(vectors)),
    deleteByFilter: watch(vectors.deleteByFilter.bind(vectors)),
    search: watch(vectors.search.bind(vectors)),
    count: watch(vectors.count.bind(vectors)),
    ids: watch(vectors.ids.bind(vectors)),
    collections: watch(vectors.collections.bind(vectors)),
    dropCollection: watch(vectors.dropCollection.bind(vectors)),
    ready: () => vectors.ready(),
  };
}

/**
 * The nodes collection, made (or checked) once: at start-up, and while it could not be
 * (the index unreachable then), again before each use: a Qdrant that starts after the search
 * service is picked up by the next search or indexing pass, with no restart. Concurrent
 * callers share one attempt. A collection that exists with other vectors throws
 * VectorCollectionMismatchError (a misconfiguration, never retried into mixed vectors).
 */
export interface CollectionGate {
  readonly collection: string;
  readonly ensured: boolean;
  ensure(): Promise<void>;
}

export function createCollectionGate(
  vectors: VectorIndex,
  collection: string,
  dimensions: number,
  options: CollectionOptions,
): CollectionGate {
  let ensured = false;
  let attempt: Promise<void> | null = null;
  return {
    collection,
    get ensured() {
      return ensured;
    },
    ensure() {
      if (ensured) return Promise.resolve();
      attempt ??= vectors
        .ensureCollection(collection, dimensions, options)
        .then(() => {
          ensured = true;
        })
        .finally(() => {
          attempt = null;
        });
      return attempt;
    },
  };
}
