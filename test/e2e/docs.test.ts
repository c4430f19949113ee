import { describe, expect, it } from 'vitest';
import { api, newTenant } from './support/client';

type Operation = {
  security?: unknown[];
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: unknown;
};
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, any>;
    securitySchemes: Record<string, { type: string }>;
    responses?: Record<string, unknown>;
  };
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ path, method, op, statuses: Object.keys(op.responses) })),
  );

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

  it('documents every status the server really sends', async () => {
    const doc = (await api<Doc>('GET', '/openapi.json')).body;
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(20);
    for (const { path, method, op, statuses } of ops) {
      const name = `${method.toUpperCase()} ${path}`;
      expect(statuses, name).toEqual(expect.arrayContaining(['400', '500', '503']));
      if (op.security?.length) expect(statuses, name).toContain('401');
      if (op.requestBody) expect(statuses, name).toEqual(expect.arrayContaining(['413', '415']));
      for (const s of statuses.filter((x) => Number(x) >= 400))
        expect(op.responses[s]!.content, `${name} ${s}`).toHaveProperty(['application/problem+json']);
    }
    const statusesOf = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses);
    expect(statusesOf('/auth/refresh', 'post')).toContain('401');
    expect(statusesOf('/auth/magic-link/verify', 'post')).toContain('401');
    expect(statusesOf('/auth/magic-link', 'post')).toContain('429');
    for (const path of ['/graph/seed', '/graph/neighbors/{id}', '/graph-health'])
      expect(statusesOf(path, 'get'), path).toContain('429');
    expect(statusesOf('/auth/api-keys', 'post')).toContain('403');
    expect(statusesOf('/auth/api-keys/{id}', 'delete')).toContain('403');
    expect(doc.components.responses).toHaveProperty('MethodNotAllowed');
  });

  it('answers 405 with Allow, listing exactly the documented methods, for any other method on a documented path', async () => {
    const doc = (await api<Doc>('GET', '/openapi.json')).body;
    for (const [path, item] of Object.entries(doc.paths)) {
      const documented = Object.keys(item).filter((m) => METHODS.includes(m));
      const missing = METHODS.find((m) => !documented.includes(m) && m !== 'get');
      if (!missing) continue;
      const concrete = path.replace(/\{[^}]+\}/g, 'node_01jd8x6q1bf5r3v2m9w7k4t0za');
      const res = await api(missing.toUpperCase(), concrete, { body: {} });
      expect(res.status, `${missing} ${path}`).toBe(405);
      const allow = res.headers
        .get('allow')!
        .split(', ')
        .map((m) => m.toLowerCase());
      expect(allow.filter((m) => m !== 'head').sort(), path).toEqual(documented.sort());
    }
  });

  it('states the limits the server applies: trimmed fields say so and their maxLength holds on the value as sent', async () => {
    const doc = (await api<Doc>('GET', '/openapi.json')).body;
    const title = doc.components.schemas['CreateNodeInput'].properties.title;
    expect(title).toMatchObject({ type: 'string', maxLength: 500 });
    expect(title.description).toMatch(/whitespace is removed/);
    expect(JSON.stringify(title)).toContain('pattern');
    const s = await newTenant('docs-limits');
    expect((await api('POST', '/nodes', { auth: s.bearer, body: { title: `${'x'.repeat(500)} ` } })).status).toBe(400);
    expect((await api('POST', '/nodes', { auth: s.bearer, body: { title: 'x'.repeat(500) } })).status).toBe(201);
  });

  it('serves a readable reference page that loads the document', async () => {
    const res = await api<string>('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.body).toMatch(/<html/i);
    expect(res.body).toContain('openapi.json');
  });
});
