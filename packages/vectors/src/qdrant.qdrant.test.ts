import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONTRACT_COLLECTION_PREFIX, describeVectorIndexContract } from './contract';
import { VectorCollectionMismatchError, VectorIndexUnavailableError } from './errors';
import type { VectorIndex } from './port';
import { createQdrantVectorIndex } from './qdrant';

/**
 * The Qdrant adapter against a real Qdrant (../shared/bin/qdrant, or QDRANT_BIN), started by
 * scripts/infra/qdrant.sh; when it cannot start, this suite fails with the script's output,
 * never skips. A server this suite started is stopped after it; the collections it made are
 * deleted either way.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(root, 'scripts/infra/qdrant.sh');
const url = `http://127.0.0.1:${process.env['KG_QDRANT_PORT'] ?? '56333'}`;
const RUN = CONTRACT_COLLECTION_PREFIX; // unique to this run: own collections start with it
let startedHere = false;
let up = false;

type Json = Record<string, unknown>;
async function rest(method: string, pathname: string, body?: unknown, base = url, headers: Json = {}): Promise<Json> {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers } as Record<string, string>,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Json;
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(json)}`);
  return json.result as Json;
}
const collectionInfo = (name: string) => rest('GET', `/collections/${name}`);

beforeAll(() => {
  try {
    execFileSync('bash', [script, 'status'], { stdio: 'ignore' });
  } catch {
    startedHere = true;
  }
  execFileSync('bash', [script, 'start'], { stdio: 'inherit' });
  up = true;
}, 120_000);
afterAll(async () => {
  if (!up) return; // the start failed loudly above; nothing to clean
  try {
    const { collections } = (await rest('GET', '/collections')) as { collections: Array<{ name: string }> };
    for (const { name } of collections.filter((c) => c.name.startsWith(RUN)))
      await rest('DELETE', `/collections/${name}`);
  } finally {
    if (startedHere) execFileSync('bash', [script, 'stop'], { stdio: 'inherit' });
  }
}, 60_000);

describeVectorIndexContract('qdrant server', async () => createQdrantVectorIndex({ url }));

describe('qdrant server: one collection for every tenant, laid out as Qdrant recommends', () => {
  const index = () => createQdrantVectorIndex({ url });
  const filterKeys = ['model', 'status', 'para_item_ids', 'orphan', 'source_capture_id'];

  it('creates a tenant index (is_tenant), a keyword index per filter key, per-tenant graphs and payloads on disk', async () => {
    const name = `${RUN}layout`;
    await index().ensureCollection(name, 3, { filterKeys });
    const info = await collectionInfo(name);
    const config = info.config as { params: Json; hnsw_config: Json };
    expect(config.params).toMatchObject({ vectors: { size: 3, distance: 'Cosine' }, on_disk_payload: true });
    expect(config.hnsw_config).toMatchObject({ m: 0, payload_m: 16 });
    const schema = info.payload_schema as Record<string, { params: Json }>;
    expect(Object.keys(schema).sort()).toEqual(['tenant_id', ...filterKeys].sort());
    expect(schema.tenant_id!.params).toEqual({ type: 'keyword', is_tenant: true });
    for (const key of filterKeys) expect(schema[key]!.params).toEqual({ type: 'keyword', enable_hnsw: false });
  });

  it('filters by tenant, model and source_capture_id on the indexed keys (null: made by hand)', async () => {
    const name = `${RUN}by_capture`;
    const vectors = index();
    await vectors.ensureCollection(name, 3, { filterKeys });
    const payload = { model: 'm', status: 'active', para_item_ids: ['para_1'], orphan: 'false' };
    await vectors.upsert(name, [
      { id: 'node_a', vector: [1, 0, 0], payload: { tenant_id: 'tenant_a', ...payload, source_capture_id: 'cap_1' } },
      { id: 'node_b', vector: [1, 0, 0], payload: { tenant_id: 'tenant_a', ...payload, source_capture_id: null } },
      { id: 'node_c', vector: [1, 0, 0], payload: { tenant_id: 'tenant_b', ...payload, source_capture_id: 'cap_1' } },
    ]);
    const filter = { tenant_id: 'tenant_a', model: 'm', source_capture_id: 'cap_1' };
    expect((await vectors.search(name, { vector: [1, 0, 0], limit: 5, filter })).map((h) => h.id)).toEqual(['node_a']);
    const byPara = { tenant_id: 'tenant_a', model: 'm', para_item_ids: 'para_1', orphan: 'false', status: 'active' };
    expect((await vectors.search(name, { vector: [1, 0, 0], limit: 5, filter: byPara })).map((h) => h.id)).toEqual([
      'node_a',
      'node_b',
    ]);
    const schema = (await collectionInfo(name)).payload_schema as Record<string, { points: number }>;
    expect(schema.tenant_id!.points).toBe(3);
    expect(schema.source_capture_id!.points).toBe(2); // a null value is not indexed
  });

  it('brings an older collection up to the layout at start-up, keeping its points', async () => {
    const name = `${RUN}older`;
    await rest('PUT', `/collections/${name}`, { vectors: { size: 3, distance: 'Cosine' } });
    await rest('PUT', `/collections/${name}/index?wait=true`, { field_name: 'tenant_id', field_schema: 'keyword' });
    const vectors = index();
    await vectors.upsert(name, [{ id: 'node_old', vector: [0, 1, 0], payload: { tenant_id: 'tenant_a', model: 'm' } }]);
    await Promise.all([
      vectors.ensureCollection(name, 3, { filterKeys }),
      index().ensureCollection(name, 3, { filterKeys }),
    ]);
    const schema = (await collectionInfo(name)).payload_schema as Record<string, { params: Json }>;
    expect(schema.tenant_id!.params).toEqual({ type: 'keyword', is_tenant: true });
    expect(schema.source_capture_id!.params).toEqual({ type: 'keyword', enable_hnsw: false });
    expect(await vectors.count(name, { tenant_id: 'tenant_a', model: 'm' })).toBe(1);
  });

  it('refuses an existing collection with another vector size or distance, naming it, and leaves it alone', async () => {
    const dotty = `${RUN}dotty`;
    const wide = `${RUN}wide`;
    await rest('PUT', `/collections/${dotty}`, { vectors: { size: 3, distance: 'Dot' } });
    await rest('PUT', `/collections/${wide}`, { vectors: { size: 4, distance: 'Cosine' } });
    const refusal = (name: string) =>
      index()
        .ensureCollection(name, 3, { filterKeys })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
    const byDistance = await refusal(dotty);
    expect(byDistance).toBeInstanceOf(VectorCollectionMismatchError);
    expect(byDistance).toMatchObject({ collection: dotty, setting: 'distance' });
    expect((byDistance as Error).message).toMatch(/vector distance Dot .*expected 3 dimensions, Cosine/);
    const bySize = await refusal(wide);
    expect(bySize).toMatchObject({ collection: wide, setting: 'size' });
    expect((bySize as Error).message).toMatch(/vector size 4 .*expected 3 dimensions, Cosine/);
    expect((await collectionInfo(dotty)).payload_schema).toEqual({}); // no index added to a refused collection
  });
});

/**
 * A second Qdrant of this suite's own (other ports, other data folder, an API key), so that
 * killing it disturbs nothing else.
 */
describe('qdrant server that refuses the key, dies and comes back', () => {
  const port = Number(process.env['KG_QDRANT_PORT'] ?? '56333') + 100;
  const apiKey = 'kg-test-qdrant-key';
  const env = {
    ...process.env,
    KG_INFRA_DIR: `/tmp/kg-infra-vectors-${process.pid}`,
    KG_QDRANT_PORT: String(port),
    KG_QDRANT_GRPC_PORT: String(port + 1),
    QDRANT__SERVICE__API_KEY: apiKey,
  };
  const own = `http://127.0.0.1:${port}`;
  const sh = (cmd: string) => execFileSync('bash', [script, cmd], { stdio: 'inherit', env });
  let vectors: VectorIndex;

  beforeAll(() => {
    // The client warns that an API key travels over plain HTTP (loopback here).
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    sh('start');
    vectors = createQdrantVectorIndex({ url: own, apiKey, timeoutMs: 3_000 });
  }, 120_000);
  afterAll(() => {
    vi.restoreAllMocks();
    sh('stop');
    execFileSync('rm', ['-rf', env.KG_INFRA_DIR]);
  }, 60_000);

  const failure = (run: Promise<unknown>) =>
    run.then(
      () => undefined,
      (err: unknown) => err,
    );

  it('a wrong or missing API key: not ready, and a typed unavailable error naming QDRANT_API_KEY', async () => {
    expect(await vectors.ready()).toBe(true);
    for (const key of ['wrong-key', undefined]) {
      const refused = createQdrantVectorIndex({ url: own, ...(key ? { apiKey: key } : {}) });
      expect(await refused.ready()).toBe(false); // Qdrant's /readyz itself answers without a key
      const err = await failure(refused.ensureCollection('k', 3));
      expect(err).toBeInstanceOf(VectorIndexUnavailableError);
      expect(err).toMatchObject({ kind: 'unavailable', status: 503, reason: 'unauthorized' });
      expect((err as VectorIndexUnavailableError).diagnostic).toMatch(/QDRANT_API_KEY/);
    }
  });

  it('while killed: every call is a typed 503 with Retry-After and ready() is false; restarted: every vector is back', async () => {
    const name = 'survivors';
    await vectors.ensureCollection(name, 3, { filterKeys: ['model'] });
    const points = Array.from({ length: 50 }, (_, i) => ({
      id: `node_${i}`,
      vector: [1, i / 50, 0],
      payload: { tenant_id: 'tenant_a', model: 'm' },
    }));
    await vectors.upsert(name, points);
    const pid = Number(readFileSync(`${env.KG_INFRA_DIR}/qdrant.pid`, 'utf8'));
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => vectors.ready(), { timeout: 10_000 }).toBe(false);

    const query = { vector: [1, 0, 0], limit: 5, filter: { tenant_id: 'tenant_a' } };
    const calls = [
      vectors.search(name, query),
      vectors.count(name, { tenant_id: 'tenant_a' }),
      vectors.upsert(name, points.slice(0, 1)),
      vectors.setPayload(name, 'node_1', { model: 'n' }),
      vectors.delete(name, ['node_2']),
      vectors.deleteByFilter(name, { tenant_id: 'tenant_b' }),
      vectors.ensureCollection(name, 3),
    ];
    for (const err of await Promise.all(calls.map(failure))) {
      expect(err).toBeInstanceOf(VectorIndexUnavailableError);
      expect(err).toMatchObject({ kind: 'unavailable', status: 503, reason: 'unreachable' });
      expect((err as VectorIndexUnavailableError).extra.retryAfterSeconds).toBe(5);
      expect((err as Error).message).not.toContain(String(port)); // the public text names no address
      expect((err as VectorIndexUnavailableError).diagnostic).toMatch(/ECONNREFUSED.*QDRANT_URL/);
    }

    sh('start');
    expect(await vectors.ready()).toBe(true);
    expect(await vectors.count(name, { tenant_id: 'tenant_a', model: 'm' })).toBe(50);
    const hits = await vectors.search(name, query);
    expect(hits.map((h) => h.id)).toEqual(['node_0', 'node_1', 'node_2', 'node_3', 'node_4']);
  }, 60_000);
});
