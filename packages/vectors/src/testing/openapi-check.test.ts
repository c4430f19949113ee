import { describe, expect, it } from 'vitest';
import { OpenApiChecker, qdrantOpenApiLocation } from './openapi-check';

const spec = qdrantOpenApiLocation();

const UUID = '0193f4a2-7c1e-7b3a-9c2d-5e6f7a8b9c0d';
const tenantFilter = { must: [{ key: 'tenant_id', match: { value: 'tenant_a' } }] };
const ok = (result: unknown) => ({ result, status: 'ok', time: 0.001 });

describe('OpenApiChecker on the Qdrant document', () => {
  const checker = new OpenApiChecker(spec.path);
  const request = (method: string, url: string, body?: unknown) => checker.checkRequest(method, url, body);
  const response = (method: string, url: string, status: number, body: unknown, contentType = 'application/json') =>
    checker.checkResponse({ method, url, requestBody: undefined, status, contentType, responseBody: body });

  it('matches literal segments before templates', () => {
    expect(checker.findTemplate('POST', '/collections/c/points/delete')).toBe(
      '/collections/{collection_name}/points/delete',
    );
    expect(checker.findTemplate('GET', '/collections/c/points/p1')).toBe('/collections/{collection_name}/points/{id}');
    expect(checker.findTemplate('POST', '/collections/c/points/search')).toBeUndefined();
  });

  it('accepts the bodies the adapter sends', () => {
    expect(request('PUT', '/collections/c', { vectors: { size: 3, distance: 'Cosine' } })).toEqual([]);
    expect(
      request('PUT', '/collections/c/index?wait=true', {
        field_name: 'tenant_id',
        field_schema: { type: 'keyword', is_tenant: true },
      }),
    ).toEqual([]);
    expect(
      request('PUT', '/collections/c/points?wait=true', {
        points: [{ id: UUID, vector: [1, 0], payload: { tenant_id: 't', _id: 'x' } }],
      }),
    ).toEqual([]);
    expect(
      request('POST', '/collections/c/points/query', {
        query: [1, 0],
        filter: tenantFilter,
        limit: 3,
        with_payload: true,
        with_vector: false,
      }),
    ).toEqual([]);
    expect(request('POST', '/collections/c/points/delete?wait=true', { filter: tenantFilter })).toEqual([]);
    expect(request('POST', '/collections/c/points/count', { filter: tenantFilter, exact: true })).toEqual([]);
  });

  it('rejects paths, methods and query parameters the document does not declare', () => {
    expect(request('POST', '/collections/c/points/search', { vector: [1, 0], limit: 3 })).toEqual([
      'POST /collections/c/points/search: no such operation in the OpenAPI document',
    ]);
    expect(request('DELETE', '/collections/c/points', undefined)[0]).toMatch(/no such operation/);
    expect(request('POST', '/collections/c/points/query?wait=true', { query: [1] })[0]).toMatch(
      /undeclared query parameter wait/,
    );
    expect(request('PUT', '/collections/c/points?wait=yes', { points: [] })[0]).toMatch(/\?wait violates/);
  });

  it('rejects bodies that break the schemas', () => {
    const bad: Array<[string, string, unknown]> = [
      ['PUT', '/collections/c', { vectors: { size: 3, distance: 'cosine' } }],
      ['PUT', '/collections/c', { vectors: { size: 0, distance: 'Cosine' } }],
      ['PUT', '/collections/c/points', { points: [{ id: 'node_01jd8x6q1bf5r3v2m9w7k4t0za', vector: [1] }] }],
      ['PUT', '/collections/c/points', { points: [{ id: -1, vector: [1] }] }],
      // Closed world: the pre-1.10 search body is not a query body.
      ['POST', '/collections/c/points/query', { vector: [1, 0], top: 3 }],
      // Needs the lone `{nullable: true}` read as null, not as "anything".
      ['POST', '/collections/c/points/count', { filter: { must: [{ key: 'tenant_id', match: { val: 'x' } }] } }],
      ['POST', '/collections/c/points/count', { filter: { mustt: [] } }],
      ['POST', '/collections/c/points/query', { query: [1], limit: 0 }],
    ];
    for (const [method, url, body] of bad) expect(request(method, url, body), JSON.stringify(body)).not.toEqual([]);
  });

  it('checks responses against the status they were sent with', () => {
    expect(response('GET', '/collections/c/exists', 200, ok({ exists: true }))).toEqual([]);
    expect(response('GET', '/collections/c/exists', 200, { status: 'ok', time: 0 })[0]).toMatch(
      /required property 'result'/,
    );
    expect(response('GET', '/collections/c/exists', 200, ok({ exists: 'yes' }))).not.toEqual([]);
    const point = { id: UUID, version: 1, score: 0.5, payload: { tenant_id: 't' } };
    expect(response('POST', '/collections/c/points/query', 200, ok({ points: [point] }))).toEqual([]);
    const { version: _version, ...unversioned } = point;
    expect(response('POST', '/collections/c/points/query', 200, ok({ points: [unversioned] }))).not.toEqual([]);
    expect(response('POST', '/collections/c/points/count', 404, { status: { error: 'Not found' }, time: 0 })).toEqual(
      [],
    );
    expect(response('POST', '/collections/c/points/count', 404, { status: 'gone' })).not.toEqual([]);
    expect(response('GET', '/readyz', 200, 'all shards are ready', 'text/plain')).toEqual([]);
    expect(response('GET', '/readyz', 200, { ready: true })[0]).toMatch(/content type application\/json not declared/);
  });
});
