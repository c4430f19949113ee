/**
 * The two vector indexes the distributed search benches compare in one run: the in-process
 * index persisted under the search process's VECTORS_DIR, and the real Qdrant that
 * scripts/infra/qdrant.sh starts (../shared/bin/qdrant). startCluster's `vectors` option picks
 * the first; the cluster stays the same (PostgreSQL, Kafka, graph, gateway) and only the search
 * process is restarted with or without QDRANT_URL for the other.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createMemoryVectorIndex, createQdrantVectorIndex, type VectorIndex } from '@kg/vectors';
import type { Cluster } from '../../scripts/distributed/cluster';
import type { ServiceSpec } from '../../scripts/distributed/services';

export type VectorsKind = 'in-process' | 'qdrant';
export const VECTORS_KINDS: readonly VectorsKind[] = ['in-process', 'qdrant'];
export const label = (kind: VectorsKind) => (kind === 'qdrant' ? 'Qdrant' : 'in-process');

/** `--vectors=in-process|qdrant|both` (both by default): the indexes to run, in-process first. */
export function vectorsKinds(value: string): VectorsKind[] {
  if (value === 'both') return [...VECTORS_KINDS];
  if (value === 'in-process' || value === 'qdrant') return [value];
  throw new Error(`--vectors must be in-process, qdrant or both (got ${value})`);
}

/** The Qdrant of scripts/infra (KG_QDRANT_PORT as scripts/infra/lib.sh reads it). */
export const qdrantUrl = () => `http://127.0.0.1:${process.env['KG_QDRANT_PORT'] ?? '56333'}`;

/** The pid of the Qdrant server scripts/infra/qdrant.sh started (its pidfile). */
export function qdrantPid(): number {
  const dir = process.env['KG_INFRA_DIR'] ?? '/tmp/kg-infra';
  return Number(readFileSync(path.join(dir, 'qdrant.pid'), 'utf8').trim());
}

const searchSpec = (cluster: Cluster): ServiceSpec => {
  const spec = cluster.specs.find((s) => s.name === 'search');
  if (!spec) throw new Error('the cluster has no search service');
  return spec;
};

/** The in-process index's folder of the cluster's search process. */
export function vectorsDir(cluster: Cluster): string {
  const spec = searchSpec(cluster);
  return spec.env['VECTORS_DIR'] ?? path.join(cluster.outboxDir, '..', 'search-vectors');
}

/** Which index the search process runs on now (its spec's QDRANT_URL). */
export const currentVectors = (cluster: Cluster): VectorsKind =>
  searchSpec(cluster).env['QDRANT_URL'] ? 'qdrant' : 'in-process';

/**
 * Points the cluster's search process at `kind` (and sets `env` on it), restarting it when it
 * runs. The cluster keeps each service's spec and starts a process from it, so the change
 * holds for every later `cluster.start('search')`.
 */
export async function useVectors(cluster: Cluster, kind: VectorsKind, env: Record<string, string> = {}) {
  const spec = searchSpec(cluster);
  const dir = vectorsDir(cluster);
  await cluster.stop('search');
  if (kind === 'qdrant') spec.env['QDRANT_URL'] = qdrantUrl();
  else {
    delete spec.env['QDRANT_URL'];
    delete spec.env['QDRANT_API_KEY'];
    spec.env['VECTORS_DIR'] = dir;
  }
  Object.assign(spec.env, env);
}

/** The Qdrant adapter on the infra's server, with room for 1,000-point upserts on a busy machine. */
const qdrantIndex = () => createQdrantVectorIndex({ url: qdrantUrl(), timeoutMs: 120_000 });

/** A client of `kind` as the search process opens it (the in-process one only while search is stopped). */
export function openVectors(cluster: Cluster, kind: VectorsKind): VectorIndex {
  return kind === 'qdrant' ? qdrantIndex() : createMemoryVectorIndex({ dir: vectorsDir(cluster) });
}

interface CollectionInfo {
  status: string;
  optimizer_status: unknown;
  points_count: number | null;
  indexed_vectors_count: number | null;
  segments_count: number;
}

/** Qdrant's own account of a collection (GET /collections/{name}). */
export async function qdrantCollection(name: string): Promise<CollectionInfo> {
  const res = await fetch(`${qdrantUrl()}/collections/${encodeURIComponent(name)}`);
  if (!res.ok) throw new Error(`GET /collections/${name}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { result: CollectionInfo }).result;
}

/**
 * Waits until Qdrant's optimizers have finished with the collection (status green: segments
 * merged and the tenants' HNSW graphs built), so that queries run on the index a long-lived
 * deployment has, not on segments still being indexed. Returns the seconds waited.
 */
export async function qdrantSettled(name: string, log: (s: string) => void, timeoutMs = 1_800_000): Promise<number> {
  const t0 = performance.now();
  let last = 0;
  for (;;) {
    const info = await qdrantCollection(name);
    if (info.status === 'green') {
      log(
        `  Qdrant ${name}: green after ${((performance.now() - t0) / 1000).toFixed(1)} s, ${info.points_count} points, ${info.indexed_vectors_count} indexed vectors, ${info.segments_count} segments`,
      );
      return (performance.now() - t0) / 1000;
    }
    if (performance.now() - t0 > timeoutMs)
      throw new Error(`Qdrant ${name} still ${info.status} after ${timeoutMs} ms`);
    if (performance.now() - last > 15_000) {
      log(`  Qdrant ${name}: ${info.status}, ${info.indexed_vectors_count ?? 0} indexed vectors…`);
      last = performance.now();
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Removes the bench tenant's points from Qdrant (its storage outlives the run's database). */
export async function dropQdrantTenant(collection: string, tenantId: string, log: (s: string) => void) {
  try {
    await qdrantIndex().deleteByFilter(collection, { tenant_id: tenantId });
  } catch (err) {
    log(`  could not remove tenant ${tenantId} from Qdrant ${collection}: ${String(err)}`);
  }
}
