import { describe, expect, it } from 'vitest';
import { api } from './support/client';

describe('API reference', () => {
  it('serves an OpenAPI 3.1 document generated from the schemas', async () => {
    const res = await api<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    }>('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1/);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/nodes',
        '/nodes/{id}',
        '/nodes/{id}/links',
        '/nodes/{id}/related',
        '/auth/api-keys',
        '/auth/api-keys/{id}',
        '/auth/magic-link',
        '/auth/refresh',
      ]),
    );
    expect(res.body.paths['/nodes']).toHaveProperty('post');
    expect(res.body.components.schemas).toHaveProperty('Node');
    expect(res.body.components.schemas).toHaveProperty('Problem');
  });

  it('serves a readable reference page', async () => {
    const res = await api<string>('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.body).toContain('openapi.json');
  });
});
