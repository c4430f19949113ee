import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, expectUnauthorized, newTenant, type Session } from './support/client';

let s: Session;
let apiKey: string;
beforeAll(async () => {
  s = await newTenant('unbuilt');
  apiKey = `ApiKey ${(await api('POST', '/auth/api-keys', { auth: s.bearer, body: { name: 'unbuilt' } })).body.key}`;
});

const pending: Array<[string, string, unknown?]> = [
  ['POST', '/context', {}],
  ['POST', '/context', { focus_node_ids: [], mode: 'keyword' }],
];

describe('features that have not landed yet', () => {
  for (const [method, path, body] of pending) {
    it(`${method} ${path} answers 501 problem+json once authenticated, 401 without credentials`, async () => {
      for (const auth of [s.bearer, apiKey]) {
        const p = expectProblem(await api(method, path, { auth, ...(body ? { body } : {}) }), 501);
        expect(p).toMatchObject({
          type: 'https://kg.dev/problems/not-implemented',
          title: 'Not implemented',
          status: 501,
        });
        expect(p.detail.length).toBeGreaterThan(0);
      }
      expectUnauthorized(await api(method, path, body ? { body } : {}));
    });
  }
});
