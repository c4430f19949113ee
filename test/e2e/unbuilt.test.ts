import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, newTenant, type Session } from './support/client';

let s: Session;
beforeAll(async () => {
  s = await newTenant('unbuilt');
});

const pending: Array<[string, string, unknown?]> = [
  ['GET', '/para/tree'],
  ['GET', '/para'],
  ['POST', '/para', { category: 'projects', label: 'Launch' }],
  ['GET', '/captures'],
  ['POST', '/captures', { title: 'x', content_type: 'note', source: 'api' }],
  ['POST', '/context', {}],
  ['GET', '/links/suggestions?text=x'],
];

describe('features that have not landed yet', () => {
  for (const [method, path, body] of pending) {
    it(`${method} ${path} answers 501 problem+json (401 without credentials)`, async () => {
      const p = expectProblem(await api(method, path, { auth: s.bearer, ...(body ? { body } : {}) }), 501);
      expect(p.type).toContain('not-implemented');
      expectProblem(await api(method, path, body ? { body } : {}), 401);
    });
  }

  it('DELETE /para/:id is always 410 Gone', async () => {
    const p = expectProblem(await api('DELETE', '/para/para_01jd8x6q1bf5r3v2m9w7k4t0za', { auth: s.bearer }), 410);
    expect(p.detail).toMatch(/archive/i);
  });
});
