import { describe, expect, it } from 'vitest';
import { api } from './support/client';

type Operation = {
  security?: unknown[];
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: unknown;
};
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string }> };
};

describe('API reference', () => {
  it('serves an OpenAPI 3.1 document of every public path, without credentials', async () => {
    const res = await api<Doc>('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1(\.\d+)?$/);
    expect(doc.info.title.length).toBeGreaterThan(0);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/nodes',
        '/nodes/{id}',
        '/nodes/{id}/links',
        '/nodes/{id}/related',
        '/auth/magic-link',
        '/auth/magic-link/verify',
        '/auth/refresh',
        '/auth/api-keys',
        '/auth/api-keys/{id}',
      ]),
    );
    expect(Object.keys(doc.paths['/nodes']!).sort()).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths['/nodes/{id}']!).sort()).toEqual(expect.arrayContaining(['delete', 'get', 'patch']));
    expect(doc.paths['/nodes/{id}/links']).toHaveProperty('patch');
    expect(Object.keys(doc.paths['/auth/api-keys']!).sort()).toEqual(expect.arrayContaining(['get', 'post']));
    expect(doc.components.schemas).toHaveProperty('Node');
    expect(doc.components.schemas).toHaveProperty('Problem');
    expect(
      Object.values(doc.components.securitySchemes)
        .map((x) => x.type)
        .sort(),
    ).toEqual(['apiKey', 'http']);
  });

  it('documents errors as problem+json and protected operations with their security', async () => {
    const doc = (await api<Doc>('GET', '/openapi.json')).body;
    const post = doc.paths['/nodes']!['post']!;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['201', '400', '401']));
    expect(post.responses['400']!.content).toHaveProperty(['application/problem+json']);
    expect(post.security?.length).toBeGreaterThan(0);
    expect(post.requestBody).toBeTruthy();
    expect(doc.paths['/auth/magic-link']!['post']!.security ?? []).toEqual([]);
    expect(Object.keys(doc.paths['/nodes/{id}']!['delete']!.responses)).toEqual(expect.arrayContaining(['204', '404']));
  });

  it('serves a readable reference page that loads the document', async () => {
    const res = await api<string>('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.body).toMatch(/<html/i);
    expect(res.body).toContain('openapi.json');
  });
});
