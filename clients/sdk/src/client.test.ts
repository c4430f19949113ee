import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKgClient, ok } from './client.ts';
import { ApiError } from './errors.ts';

const KEY = `key_${'0'.repeat(26)}.${'a'.repeat(43)}`;

describe('createKgClient + ok', () => {
  const seen: Request[] = [];
  const fetch = (async (req: Request) => {
    seen.push(req);
    if (req.url.endsWith('/nodes/node_missing'))
      return new Response(
        JSON.stringify({
          type: 'https://kg.dev/problems/not-found',
          title: 'Not found',
          status: 404,
          detail: 'node not found',
          errors: [{ path: 'path.id', message: 'unknown' }],
        }),
        { status: 404, headers: { 'content-type': 'application/problem+json', 'x-request-id': 'r-1' } },
      );
    return Response.json({ data: [], total: 0, page: 2, per_page: 5 });
  }) as typeof globalThis.fetch;
  const kg = createKgClient({
    env: { baseUrl: 'http://kg.test/api/v1', apiKey: KEY, configDir: mkdtempSync(path.join(tmpdir(), 'kg-sdk-')) },
    fetch,
  });

  it('sends typed queries with the credential and returns the data', async () => {
    const page = await ok(kg.api.GET('/nodes', { params: { query: { page: 2, per_page: 5, status: 'raw' } } }));
    expect(page.page).toBe(2);
    const req = seen.at(-1)!;
    expect(req.url).toBe('http://kg.test/api/v1/nodes?page=2&per_page=5&status=raw');
    expect(req.headers.get('authorization')).toBe(`ApiKey ${KEY}`);
  });

  it('turns a problem+json answer into an ApiError with its fields', async () => {
    const err = await ok(kg.api.GET('/nodes/{id}', { params: { path: { id: 'node_missing' } } })).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 404,
      title: 'Not found',
      detail: 'node not found',
      type: 'https://kg.dev/problems/not-found',
      errors: [{ path: 'path.id', message: 'unknown' }],
      requestId: 'r-1',
    });
  });
});
