import { describe, expect, it } from 'vitest';
import { Me } from '@kg/contracts';
import { api, conforms, expectUnauthorized, newTenant } from './support/client';

describe('GET /auth/me', () => {
  it('names the user, tenant, e-mail and kind of credential, for a bearer token and an API key alike', async () => {
    const s = await newTenant('me');
    const bearer = await api('GET', '/auth/me', { auth: s.bearer });
    expect(bearer.status).toBe(200);
    const me = conforms(Me, bearer.body);
    expect(me).toMatchObject({ email: s.email, auth: 'bearer' });
    expect(me.tenant_id).toMatch(/^tnt_/);
    const key = await api<{ key: string }>('POST', '/auth/api-keys', { auth: s.bearer, body: { name: 'me' } });
    const viaKey = await api('GET', '/auth/me', { auth: `ApiKey ${key.body.key}` });
    expect(viaKey.status).toBe(200);
    expect(conforms(Me, viaKey.body)).toEqual({ ...me, auth: 'api_key' });
  });

  it('answers 401 without a credential, with a bad one, and for a revoked key on the next request', async () => {
    expectUnauthorized(await api('GET', '/auth/me'));
    expectUnauthorized(await api('GET', '/auth/me', { auth: 'Bearer nope' }));
    expectUnauthorized(
      await api('GET', '/auth/me', { auth: 'ApiKey key_01jd8x6q1bf5r3v2m9w7k4t0za.xxxxxxxxxxxxxxxxxxxxxx' }),
    );
    const s = await newTenant('me-revoked');
    const key = await api<{ id: string; key: string }>('POST', '/auth/api-keys', {
      auth: s.bearer,
      body: { name: 'doomed' },
    });
    const auth = `ApiKey ${key.body.key}`;
    // Verified once, so the gateway holds it in its cache of verified keys…
    for (let i = 0; i < 3; i++) expect((await api('GET', '/auth/me', { auth })).status).toBe(200);
    expect((await api('DELETE', `/auth/api-keys/${key.body.id}`, { auth: s.bearer })).status).toBe(204);
    // …and the revocation drops it there at once.
    expectUnauthorized(await api('GET', '/auth/me', { auth }));
  });
});
