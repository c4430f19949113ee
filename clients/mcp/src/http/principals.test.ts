import type { KgClient } from '@kg/sdk';
import { describe, expect, it } from 'vitest';
import { parseAuthorization } from './credential.ts';
import { Principals } from './principals.ts';

/** A client whose GET /auth/me answers from `who` and counts the calls. */
function fakeClients(who: Record<string, { tenant_id: string; user_id: string } | null>) {
  const calls: string[] = [];
  const clientFor = (authorization: string) =>
    ({
      baseUrl: 'http://api.test/api/v1',
      session: {
        fetch: async () => {
          calls.push(authorization);
          const me = who[authorization];
          return me
            ? Response.json(me)
            : Response.json({ title: 'Unauthorized', status: 401, detail: 'Invalid API key' }, { status: 401 });
        },
      },
    }) as unknown as KgClient;
  return { clientFor, calls };
}

describe('Principals', () => {
  it('names the caller by tenant and user and remembers it for a minute', async () => {
    let now = 1_000_000;
    const { clientFor, calls } = fakeClients({ 'ApiKey k': { tenant_id: 'tnt_a', user_id: 'usr_a' } });
    const principals = new Principals(clientFor, () => now);
    const cred = parseAuthorization('ApiKey k')!;
    expect(await principals.resolve(cred)).toBe('tnt_a/usr_a');
    now += 59_000;
    expect(await principals.resolve(cred)).toBe('tnt_a/usr_a');
    expect(calls).toHaveLength(1);
    now += 2_000;
    await principals.resolve(cred);
    expect(calls).toHaveLength(2);
  });

  it('never remembers a bearer token past its own expiry', async () => {
    let now = 1_000_000;
    const token = ['{}', JSON.stringify({ exp: (now + 5_000) / 1000 })]
      .map((p) => Buffer.from(p).toString('base64url'))
      .join('.');
    const header = `Bearer ${token}.s`;
    const { clientFor, calls } = fakeClients({ [header]: { tenant_id: 'tnt_b', user_id: 'usr_b' } });
    const principals = new Principals(clientFor, () => now);
    await principals.resolve(parseAuthorization(header)!);
    now += 6_000;
    await principals.resolve(parseAuthorization(header)!);
    expect(calls).toHaveLength(2);
  });

  it("throws the API's refusal and remembers nothing", async () => {
    const { clientFor, calls } = fakeClients({});
    const principals = new Principals(clientFor);
    await expect(principals.resolve(parseAuthorization('ApiKey nope')!)).rejects.toMatchObject({
      status: 401,
      detail: 'Invalid API key',
    });
    await expect(principals.resolve(parseAuthorization('ApiKey nope')!)).rejects.toThrow();
    expect(calls).toHaveLength(2);
  });
});
