import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTRACT_FILTER_KEYS, describeVectorIndexContract } from './contract';
import { VectorCollectionMismatchError, VectorIndexUnavailableError } from './errors';
import { toPointId } from './point-id';
import { createQdrantVectorIndex } from './qdrant';
import { startFakeQdrant, type Exchange, type FakeQdrant } from './testing/fake-qdrant';
import { OpenApiChecker, qdrantOpenApiLocation } from './testing/openapi-check';

const spec = qdrantOpenApiLocation();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
type Body = Record<string, unknown>;
const TENANT_FIRST = { key: 'tenant_id', match: { value: expect.stringMatching(/^tenant_/) } };

describe('qdrant adapter against a fake Qdrant checked with the OpenAPI document', () => {
  let fake: FakeQdrant;
  const sent = (operation: string, method: string): Exchange[] =>
    fake.exchanges.filter((e) => e.operation === operation && e.method === method);

  beforeAll(async () => {
    fake = await startFakeQdrant(new OpenApiChecker(spec.path));
  });
  afterAll(() => fake.close());
  afterEach(() => {
    expect(fake.takeViolations()).toEqual([]);
  });

  describeVectorIndexContract('qdrant over HTTP', async () => createQdrantVectorIndex({ url: fake.url }));

  describe('wire traffic recorded during the contract run', () => {
    it('used exactly the operations below, each declared in the document', () => {
      const used = new Set(fake.exchanges.map((e) => `${e.method} ${e.operation}`));
      expect([...used].sort()).toEqual([
        'DELETE /collections/{collection_name}',
        'GET /collections',
        'GET /collections/{collection_name}',
        'GET /collections/{collection_name}/exists',
        'GET /readyz',
        'POST /collections/{collection_name}/points/count',
        'POST /collections/{collection_name}/points/delete',
        'POST /collections/{collection_name}/points/payload',
        'POST /collections/{collection_name}/points/query',
        'POST /collections/{collection_name}/points/scroll',
        'PUT /collections/{collection_name}',
        'PUT /collections/{collection_name}/index',
        'PUT /collections/{collection_name}/points',
      ]);
      expect(fake.exchanges.every((e) => e.violations.length === 0)).toBe(true);
    });

    it('creates cosine collections with per-tenant graphs, payloads on disk, a tenant index and one per filter key', () => {
      const creates = sent('/collections/{collection_name}', 'PUT');
      expect(creates.length).toBeGreaterThan(5);
      for (const e of creates)
        expect(e.requestBody).toEqual({
          vectors: { size: e.path.endsWith('_fresh') ? 2 : 3, distance: 'Cosine' },
          hnsw_config: { m: 0, payload_m: 16 },
          on_disk_payload: true,
        });
      const indexes = sent('/collections/{collection_name}/index', 'PUT');
      for (const e of indexes) expect(e.query).toEqual({ wait: 'true' });
      const byField = new Map(
        indexes.map((e) => [(e.requestBody as Body).field_name, (e.requestBody as Body).field_schema]),
      );
      expect(Object.fromEntries(byField)).toEqual({
        tenant_id: { type: 'keyword', is_tenant: true },
        ...Object.fromEntries(
          [...CONTRACT_FILTER_KEYS, 'status'].map((k) => [k, { type: 'keyword', enable_hnsw: false }]),
        ),
      });
      // Once per collection and key: a second ensureCollection finds them in GET /collections/{name}.
      const perCollection = indexes
        .filter((e) => (e.requestBody as Body).field_name === 'tenant_id' && !e.path.includes('_fresh/')) // _fresh: a race
        .map((e) => e.path);
      expect(perCollection.filter((p, i) => perCollection.indexOf(p) !== i)).toEqual([]);
    });

    it('upserts UUID point ids with the original id in the payload, waiting for the write', () => {
      const upserts = sent('/collections/{collection_name}/points', 'PUT');
      expect(upserts.length).toBeGreaterThan(5);
      for (const e of upserts) {
        expect(e.query).toEqual({ wait: 'true' });
        for (const p of (e.requestBody as { points: Array<{ id: string; payload: Body }> }).points) {
          expect(p.id).toMatch(UUID);
          expect(p.id).toBe(toPointId(p.payload._id as string));
          expect(p.payload.tenant_id).toMatch(/^tenant_/);
        }
      }
    });

    it('puts the tenant filter first in every query, count and filtered delete', () => {
      const reads = [
        ...sent('/collections/{collection_name}/points/query', 'POST'),
        ...sent('/collections/{collection_name}/points/count', 'POST'),
      ];
      expect(reads.length).toBeGreaterThan(10);
      const deletes = sent('/collections/{collection_name}/points/delete', 'POST').map((e) => e.requestBody as Body);
      const byFilter = deletes.filter((b) => 'filter' in b);
      expect(byFilter.length).toBeGreaterThan(0);
      expect(
        deletes.filter((b) => 'points' in b).every((b) => (b.points as string[]).every((id) => UUID.test(id))),
      ).toBe(true);
      for (const body of [...reads.map((e) => e.requestBody as Body), ...byFilter]) {
        expect((body.filter as { must: unknown[] }).must[0]).toEqual(TENANT_FIRST);
      }
      const query = reads.find((e) => e.operation.endsWith('/query'))!;
      expect(query.requestBody).toMatchObject({
        query: expect.any(Array),
        limit: expect.any(Number),
        with_payload: true,
        with_vector: false,
      });
    });

    it('merges payloads with POST …/points/payload on one UUID point, waiting for the write', () => {
      const merges = sent('/collections/{collection_name}/points/payload', 'POST');
      expect(merges.length).toBeGreaterThan(1);
      for (const e of merges) {
        expect(e.query).toEqual({ wait: 'true' });
        expect(e.requestBody).toEqual({ payload: expect.any(Object), points: [expect.stringMatching(UUID)] });
      }
      expect(merges.map((e) => (e.requestBody as Body).payload)).toContainEqual({ source: null });
      expect(merges.some((e) => e.status === 404)).toBe(true);
    });

    it('saw Qdrant-shaped errors for a dimension mismatch and a missing collection', () => {
      const errors = fake.exchanges
        .filter((e) => e.status >= 400)
        .map((e) => (e.responseBody as { status: { error: string } }).status.error);
      expect(errors).toContain('Wrong input: Vector dimension error: expected dim: 3, got 2');
      expect(errors).toContain(`Not found: No point with id ${toPointId('missing')} found`);
      expect(errors.some((m) => /^Not found: Collection `.*` doesn't exist!$/.test(m))).toBe(true);
    });
  });

  it('filters on source_capture_id (null for a node made by hand) as a must match after the tenant', async () => {
    const index = createQdrantVectorIndex({ url: fake.url });
    await index.ensureCollection('by_capture', 3, { filterKeys: ['model', 'source_capture_id'] });
    await index.upsert('by_capture', [
      { id: 'node_a', vector: [1, 0, 0], payload: { tenant_id: 'tenant_a', source_capture_id: 'cap_1' } },
      { id: 'node_b', vector: [1, 0, 0], payload: { tenant_id: 'tenant_a', source_capture_id: null } },
    ]);
    const filter = { tenant_id: 'tenant_a', model: 'm', source_capture_id: 'cap_1' };
    await index.setPayload('by_capture', 'node_a', { model: 'm' });
    const hits = await index.search('by_capture', { vector: [1, 0, 0], limit: 5, filter });
    expect(hits.map((h) => h.id)).toEqual(['node_a']);
    expect(sent('/collections/{collection_name}/points/query', 'POST').at(-1)?.requestBody).toMatchObject({
      filter: {
        must: [
          { key: 'tenant_id', match: { value: 'tenant_a' } },
          { key: 'model', match: { value: 'm' } },
          { key: 'source_capture_id', match: { value: 'cap_1' } },
        ],
      },
    });
    const upserted = sent('/collections/{collection_name}/points', 'PUT').at(-1)?.requestBody as {
      points: Array<{ payload: Body }>;
    };
    expect(upserted.points.map((p) => p.payload.source_capture_id)).toEqual(['cap_1', null]);
    // As Qdrant 1.18.3 describes it (qdrant.qdrant.test.ts): the layout asked for, and a null not indexed.
    const info = (await (await fetch(`${fake.url}/collections/by_capture`)).json()) as { result: Body };
    expect(info.result).toMatchObject({
      config: { params: { on_disk_payload: true }, hnsw_config: { m: 0, payload_m: 16, ef_construct: 100 } },
      payload_schema: {
        tenant_id: { data_type: 'keyword', params: { type: 'keyword', is_tenant: true }, points: 2 },
        source_capture_id: { data_type: 'keyword', params: { type: 'keyword', enable_hnsw: false }, points: 1 },
        model: { data_type: 'keyword', points: 1 },
      },
    });
  });

  it('refuses an existing collection with another distance', async () => {
    await fetch(`${fake.url}/collections/dotty`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ vectors: { size: 3, distance: 'Dot' } }),
    });
    const index = createQdrantVectorIndex({ url: fake.url });
    const err = await index.ensureCollection('dotty', 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VectorCollectionMismatchError);
    expect(err).toMatchObject({ collection: 'dotty', setting: 'distance' });
    expect((err as Error).message).toMatch(
      /dotty exists with vector distance Dot \(3 dimensions, Dot\); expected 3 dimensions, Cosine/,
    );
  });

  it('upgrades a tenant index made with the short form to is_tenant, once', async () => {
    const put = (path: string, body: unknown) =>
      fetch(`${fake.url}${path}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await put('/collections/older', { vectors: { size: 3, distance: 'Cosine' } });
    await put('/collections/older/index', { field_name: 'tenant_id', field_schema: 'keyword' });
    await put('/collections/older/index', { field_name: 'kind', field_schema: 'keyword' });
    const index = createQdrantVectorIndex({ url: fake.url });
    const before = sent('/collections/{collection_name}/index', 'PUT').length;
    await index.ensureCollection('older', 3, { filterKeys: ['kind'] });
    await index.ensureCollection('older', 3, { filterKeys: ['kind'] });
    const made = sent('/collections/{collection_name}/index', 'PUT').slice(before);
    expect(made.map((e) => e.requestBody)).toEqual([
      { field_name: 'tenant_id', field_schema: { type: 'keyword', is_tenant: true } },
    ]);
  });

  it('sends the api key header', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const index = createQdrantVectorIndex({ url: fake.url, apiKey: 'secret-key' });
    expect(await index.ready()).toBe(true);
    expect(fake.exchanges.at(-1)?.headers['api-key']).toBe('secret-key');
    warn.mockRestore();
  });

  it('reports not ready when nothing listens', async () => {
    const index = createQdrantVectorIndex({ url: 'http://127.0.0.1:1', timeoutMs: 2_000 });
    expect(await index.ready()).toBe(false);
  });
});

describe('qdrant adapter when Qdrant cannot answer', () => {
  /** A stand-in server answering every request with `handler`. */
  async function serve(handler: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }
  const query = { vector: [1, 0, 0], limit: 3, filter: { tenant_id: 'tenant_a' } };
  const failure = (run: Promise<unknown>) =>
    run.then(
      () => undefined,
      (err: unknown) => err,
    );

  it('nothing listening: a typed unavailable error (503, Retry-After 5) whose public text names no address', async () => {
    const closed = await serve(() => undefined);
    await closed.close(); // a port that refuses connections (fetch refuses port 1 without trying)
    const index = createQdrantVectorIndex({ url: closed.url, timeoutMs: 2_000 });
    // One call at a time: a call started before the one awaited would reject unobserved meanwhile.
    for (const run of [
      () => index.search('c', query),
      () => index.upsert('c', [{ id: 'n', vector: [1], payload: { tenant_id: 't' } }]),
      () => index.ensureCollection('c', 3),
    ]) {
      const err = await failure(run());
      expect(err).toBeInstanceOf(VectorIndexUnavailableError);
      expect(err).toMatchObject({
        kind: 'unavailable',
        status: 503,
        reason: 'unreachable',
        extra: { retryAfterSeconds: 5 },
      });
      expect((err as Error).message).toBe('Semantic search is temporarily unavailable; try again shortly');
      expect((err as VectorIndexUnavailableError).diagnostic).toMatch(
        /^vectors: qdrant .* failed: fetch failed: connect ECONNREFUSED .* \(check QDRANT_URL/,
      );
    }
  });

  it("a collection deleted under a running search (Qdrant's 404): a typed unavailable error saying what to do; a missing point stays a plain error", async () => {
    const server = await serve((req, res) => {
      const pointMissing = req.url?.includes('/points/payload');
      res.writeHead(404, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: {
            error: pointMissing
              ? 'Not found: No point with id 1 found'
              : "Not found: Collection `kg_nodes_x` doesn't exist!",
          },
          time: 0,
        }),
      );
    });
    try {
      const index = createQdrantVectorIndex({ url: server.url });
      for (const run of [
        () => index.search('kg_nodes_x', query),
        () => index.upsert('kg_nodes_x', [{ id: 'n', vector: [1, 0, 0], payload: { tenant_id: 't' } }]),
        () => index.count('kg_nodes_x', { tenant_id: 't' }),
      ]) {
        const err = await failure(run());
        expect(err).toBeInstanceOf(VectorIndexUnavailableError);
        expect(err).toMatchObject({ kind: 'unavailable', status: 503, reason: 'misconfigured' });
        expect((err as VectorIndexUnavailableError).diagnostic).toMatch(
          /Collection `kg_nodes_x` doesn't exist! \(deleted while search runs: restart search, which makes it anew and embeds every node again\)/,
        );
      }
      const missingPoint = await failure(index.setPayload('kg_nodes_x', 'n', { status: 'x' }));
      expect(missingPoint).not.toBeInstanceOf(VectorIndexUnavailableError);
      expect((missingPoint as Error).message).toMatch(/No point with id/);
    } finally {
      await server.close();
    }
  });

  it('no answer within the timeout: reason timeout', async () => {
    const silent = await serve(() => undefined);
    try {
      const err = await failure(createQdrantVectorIndex({ url: silent.url, timeoutMs: 200 }).search('c', query));
      expect(err).toMatchObject({ kind: 'unavailable', reason: 'timeout' });
    } finally {
      await silent.close();
    }
  });

  it('a proxy answering 503 or 502: reason overloaded; 401/403: unauthorized naming QDRANT_API_KEY; 400: a plain error', async () => {
    let status = 503;
    const server = await serve((_req, res) => {
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: { error: `status ${status}` }, time: 0 }));
    });
    try {
      const index = createQdrantVectorIndex({ url: server.url });
      for (const [code, reason] of [
        [503, 'overloaded'],
        [502, 'overloaded'],
        [401, 'unauthorized'],
        [403, 'unauthorized'],
      ] as const) {
        status = code;
        const err = await failure(index.count('c', { tenant_id: 'tenant_a' }));
        expect(err).toMatchObject({ kind: 'unavailable', status: 503, reason });
        if (reason === 'unauthorized')
          expect((err as VectorIndexUnavailableError).diagnostic).toMatch(/QDRANT_API_KEY/);
      }
      status = 400;
      const err = await failure(index.count('c', { tenant_id: 'tenant_a' }));
      expect(err).not.toBeInstanceOf(VectorIndexUnavailableError);
      expect((err as Error).message).toBe('vectors: qdrant count failed: status 400');
    } finally {
      await server.close();
    }
  });
});
