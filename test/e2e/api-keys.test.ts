import { describe, expect, it } from 'vitest';
import { api, expectProblem, newTenant, remember } from './support/client';

describe('API keys', () => {
  it('are created once with the raw key, listed without it, and work as credentials', async () => {
    const s = await newTenant('keys');
    const created = await api('POST', '/auth/api-keys', { auth: s.bearer, body: { name: 'laptop' } });
    expect(created.status).toBe(201);
    const key = created.body as {
      id: string;
      name: string;
      prefix: string;
      key: string;
      last_used_at: null;
      revoked_at: null;
    };
    remember(key.key, key.key.split('.')[1]!);
    expect(key).toMatchObject({ name: 'laptop', last_used_at: null, revoked_at: null, created_at: expect.any(String) });
    expect(key.id).toMatch(/^key_/);
    expect(key.key.startsWith(`${key.id}.`)).toBe(true);
    expect(key.key.startsWith(key.prefix)).toBe(true);
    const auth = `ApiKey ${key.key}`;
    const node = await api('POST', '/nodes', { auth, body: { title: 'Via key' } });
    expect(node.status).toBe(201);
    const list = await api<{ data: Array<Record<string, unknown>> }>('GET', '/auth/api-keys', { auth });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id: key.id, name: 'laptop', revoked_at: null });
    expect(list.body.data[0]!['last_used_at']).toEqual(expect.any(String));
    expect(list.body.data[0]).not.toHaveProperty('key');
  });

  it('stop working on the next request after revocation', async () => {
    const s = await newTenant('revoke');
    const { body } = await api('POST', '/auth/api-keys', { auth: s.bearer, body: { name: 'temp' } });
    remember(body.key);
    const auth = `ApiKey ${body.key}`;
    expect((await api('GET', '/nodes', { auth })).status).toBe(200);
    const del = await api('DELETE', `/auth/api-keys/${body.id}`, { auth: s.bearer });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    const after = await api('GET', '/nodes', { auth });
    expectProblem(after, 401);
    expect(after.headers.get('www-authenticate')).toBeTruthy();
    const list = await api<{ data: Array<{ revoked_at: string | null }> }>('GET', '/auth/api-keys', { auth: s.bearer });
    expect(list.body.data[0]!.revoked_at).toEqual(expect.any(String));
    expect((await api('DELETE', `/auth/api-keys/${body.id}`, { auth: s.bearer })).status).toBe(204);
  });

  it('answer 404 for unknown or other tenants’ key ids, and validate names', async () => {
    const a = await newTenant('ka');
    const b = await newTenant('kb');
    const { body } = await api('POST', '/auth/api-keys', { auth: a.bearer, body: { name: 'a' } });
    remember(body.key);
    expectProblem(await api('DELETE', `/auth/api-keys/${body.id}`, { auth: b.bearer }), 404);
    expectProblem(await api('DELETE', '/auth/api-keys/key_01jd8x6q1bf5r3v2m9w7k4t0za', { auth: a.bearer }), 404);
    expectProblem(await api('DELETE', '/auth/api-keys/garbage', { auth: a.bearer }), 404);
    expect((await api('GET', '/nodes', { auth: `ApiKey ${body.key}` })).status).toBe(200);
    for (const name of [undefined, '', ' ', 'x'.repeat(101)]) {
      expectProblem(
        await api('POST', '/auth/api-keys', { auth: a.bearer, body: name === undefined ? {} : { name } }),
        400,
      );
    }
    expect((await api('POST', '/auth/api-keys', { auth: a.bearer, body: { name: 'x'.repeat(100) } })).status).toBe(201);
  });
});
