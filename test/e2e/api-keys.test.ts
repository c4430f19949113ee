import { describe, expect, it } from 'vitest';
import { ApiKey, ApiKeyCreated } from '@kg/contracts';
import {
  api,
  conforms,
  createNode,
  expectProblem,
  expectUnauthorized,
  newTenant,
  type Session,
} from './support/client';

type Created = {
  id: string;
  name: string;
  prefix: string;
  key: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};

async function createKey(s: Session, name: string): Promise<Created> {
  const res = await api<Created>('POST', '/auth/api-keys', { auth: s.bearer, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return conforms(ApiKeyCreated, res.body) as Created;
}

const listKeys = async (auth: string) => {
  const res = await api<{ data: Array<Record<string, unknown>> }>('GET', '/auth/api-keys', { auth });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['data']);
  for (const k of res.body.data) conforms(ApiKey, k);
  return res.body.data;
};

describe('API keys', () => {
  it('are created once with the raw key `{id}.{secret}` and listed without it', async () => {
    const s = await newTenant('keys');
    expect(await listKeys(s.bearer)).toEqual([]);
    const key = await createKey(s, 'laptop');
    expect(key).toMatchObject({ name: 'laptop', last_used_at: null, revoked_at: null });
    expect(Math.abs(Date.parse(key.created_at) - Date.now())).toBeLessThan(5 * 60_000);
    const [id, secret] = [key.key.slice(0, key.key.indexOf('.')), key.key.slice(key.key.indexOf('.') + 1)];
    expect(id).toBe(key.id);
    expect(secret.length).toBeGreaterThanOrEqual(16);
    expect(key.key.startsWith(key.prefix)).toBe(true);
    expect(key.prefix.length).toBeLessThan(key.key.length - 8);
    const listed = await listKeys(s.bearer);
    expect(listed).toEqual([
      {
        id: key.id,
        name: 'laptop',
        prefix: key.prefix,
        created_at: key.created_at,
        last_used_at: null,
        revoked_at: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('authenticate every kind of request with `Authorization: ApiKey <key>`', async () => {
    const s = await newTenant('keys-use');
    const key = await createKey(s, 'script');
    const auth = `ApiKey ${key.key}`;
    const a = await createNode(auth, { title: 'Via key' });
    const b = await createNode(auth, { title: 'Other' });
    expect((await api('GET', `/nodes/${a.id}`, { auth })).body).toMatchObject({ id: a.id, title: 'Via key' });
    expect((await api('PATCH', `/nodes/${a.id}`, { auth, body: { status: 'validated' } })).body).toMatchObject({
      status: 'validated',
    });
    expect(
      (await api('PATCH', `/nodes/${a.id}/links`, { auth, body: { links: [{ target_id: b.id, type: 'related' }] } }))
        .status,
    ).toBe(200);
    expect((await api('GET', `/nodes/${b.id}/related?limit=5`, { auth })).body).toMatchObject({
      nodes: [{ id: a.id }],
    });
    expect((await api('GET', '/nodes', { auth })).body).toMatchObject({ total: 2 });
    expect((await api('GET', `/graph/seed?seed=${a.id}`, { auth })).body).toMatchObject({ seed_id: a.id });
    expect((await api('GET', '/graph-health', { auth })).body).toMatchObject({ total_nodes: 2, total_links: 1 });
    expect((await api('GET', '/para', { auth })).body).toEqual({ data: [] });
    expect((await api('DELETE', `/nodes/${b.id}`, { auth })).status).toBe(204);
    const listed = await listKeys(auth);
    expect(listed.map((k) => k['name'])).toEqual(['script']);
    expect(listed.find((k) => k['id'] === key.id)!['last_used_at']).toEqual(expect.any(String));
    // The same tenant, whichever credential: the session sees what the key wrote.
    expect((await api('GET', `/nodes/${a.id}`, { auth: s.bearer })).status).toBe(200);
  });

  it('are created and revoked only by a signed-in person: with an ApiKey credential both answer 403', async () => {
    const s = await newTenant('keys-403');
    const key = await createKey(s, 'automation');
    const other = await createKey(s, 'other');
    const auth = `ApiKey ${key.key}`;
    const created = expectProblem(await api('POST', '/auth/api-keys', { auth, body: { name: 'child' } }), 403);
    expect(created.type).toContain('forbidden');
    expect(created.detail).toMatch(/signed-in person/);
    expectProblem(await api('DELETE', `/auth/api-keys/${other.id}`, { auth }), 403);
    expectProblem(await api('DELETE', `/auth/api-keys/${key.id}`, { auth }), 403);
    // Listing shows no secret and stays open to keys (a script can see its own key's last use).
    expect((await listKeys(auth)).map((k) => [k['name'], k['revoked_at']])).toEqual([
      ['other', null],
      ['automation', null],
    ]);
    expect((await api('GET', '/nodes', { auth: `ApiKey ${other.key}` })).status).toBe(200);
    // The person still manages them.
    expect((await api('DELETE', `/auth/api-keys/${other.id}`, { auth: s.bearer })).status).toBe(204);
  });

  it('reject a wrong secret, a truncated key or a key of another id', async () => {
    const s = await newTenant('keys-wrong');
    const k1 = await createKey(s, 'one');
    const k2 = await createKey(s, 'two');
    const secret1 = k1.key.slice(k1.key.indexOf('.') + 1);
    const secret2 = k2.key.slice(k2.key.indexOf('.') + 1);
    for (const bad of [
      `${k1.id}.${secret2}`,
      `${k1.id}.${secret1.slice(0, -1)}`,
      `${k1.id}.${secret1}x`,
      `${k1.id}.`,
      k1.id,
    ]) {
      expectUnauthorized(await api('GET', '/nodes', { auth: `ApiKey ${bad}` }));
    }
    expect((await api('GET', '/nodes', { auth: `ApiKey ${k1.key}` })).status).toBe(200);
  });

  it('stop working on the very next request after revocation; other keys keep working', async () => {
    const s = await newTenant('revoke');
    const doomed = await createKey(s, 'temp');
    const kept = await createKey(s, 'kept');
    expect((await api('GET', '/nodes', { auth: `ApiKey ${doomed.key}` })).status).toBe(200);
    const del = await api('DELETE', `/auth/api-keys/${doomed.id}`, { auth: s.bearer });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expectUnauthorized(await api('GET', '/nodes', { auth: `ApiKey ${doomed.key}` }));
    expectUnauthorized(await api('POST', '/nodes', { auth: `ApiKey ${doomed.key}`, body: { title: 'x' } }));
    expect((await api('GET', '/nodes', { auth: `ApiKey ${kept.key}` })).status).toBe(200);
    const listed = await listKeys(s.bearer);
    const revoked = listed.find((k) => k['id'] === doomed.id)!;
    expect(revoked['revoked_at']).toEqual(expect.any(String));
    expect(Date.parse(revoked['revoked_at'] as string)).toBeGreaterThanOrEqual(Date.parse(doomed.created_at));
    expect(listed.find((k) => k['id'] === kept.id)!['revoked_at']).toBeNull();
  });

  it("answer 404 for unknown, malformed or other tenants' key ids, which stay usable", async () => {
    const a = await newTenant('ka');
    const b = await newTenant('kb');
    const key = await createKey(a, 'a');
    expectProblem(await api('DELETE', `/auth/api-keys/${key.id}`, { auth: b.bearer }), 404);
    expectProblem(await api('DELETE', '/auth/api-keys/key_01jd8x6q1bf5r3v2m9w7k4t0za', { auth: a.bearer }), 404);
    expectProblem(await api('DELETE', '/auth/api-keys/garbage', { auth: a.bearer }), 404);
    expect(await listKeys(b.bearer)).toEqual([]);
    expect((await api('GET', '/nodes', { auth: `ApiKey ${key.key}` })).status).toBe(200);
  });

  it('validate the name: missing, empty, blank, over 100 characters, wrong type or extra fields answer 400', async () => {
    const s = await newTenant('kname');
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 7 },
      { name: 'ok', scope: 'all' },
    ]) {
      const p = expectProblem(await api('POST', '/auth/api-keys', { auth: s.bearer, body }), 400);
      expect(p.errors?.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect(await listKeys(s.bearer)).toEqual([]);
    expect((await createKey(s, 'x'.repeat(100))).name).toBe('x'.repeat(100));
    expect((await createKey(s, '  padded  ')).name).toBe('padded');
  });
});
