import { afterEach, describe, expect, it } from 'vitest';
import { SignJWT, generateKeyPair } from 'jose';
import { createMemoryKv, type KvStore } from '@kg/kv';
import { createJwksCache } from '@kg/tokens';
import { fakePeers, startTestGateway } from '../testing';

/** A kv store whose every command fails, like Redis when it is down. */
const brokenKv = (): KvStore => {
  const fail = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
  return {
    ...createMemoryKv(),
    kind: 'redis',
    get: fail,
    set: fail,
    del: fail,
    take: fail,
    setIfAbsent: fail,
    rateLimiter: () => ({ consume: fail }),
    ping: async () => false,
  };
};

const apiKeyPeers = fakePeers({
  auth: {
    apiKeys: {
      verify: async () => ({
        tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
        subject: 'usr_x',
        credential: { kind: 'api_key', id: 'key_x' },
      }),
    },
  },
});

let gateway: Awaited<ReturnType<typeof startTestGateway>> | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
});

describe('a kv (Redis) outage', () => {
  it('answers 503 problem+json with Retry-After on rate-limited routes, and logs no error', async () => {
    gateway = await startTestGateway({ kv: brokenKv(), peers: apiKeyPeers });
    for (const res of [
      await gateway.fetch('/api/v1/graph/seed', { headers: { authorization: 'ApiKey key_x.secret' } }),
      await gateway.fetch('/api/v1/auth/magic-link', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'a@example.com' }),
      }),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await res.json()) as { type: string; detail: string };
      expect(body.type).toContain('unavailable');
      expect(body.detail).not.toContain('ECONNREFUSED');
    }
    expect(gateway.lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe('signing keys that cannot be fetched', () => {
  it('answer 503 (try again), while a token the keys do not know still answers 401', async () => {
    const { privateKey } = await generateKeyPair('EdDSA');
    const token = await new SignJWT({ tnt: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za' })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
      .setSubject('usr_x')
      .setJti('j')
      .setIssuer('kg-auth')
      .setAudience('kg-api')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const down = createJwksCache(() => Promise.reject(new Error('auth service unreachable')));
    gateway = await startTestGateway({ keys: down.resolver });
    const res = await gateway.fetch('/api/v1/nodes', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    await gateway.close();

    const empty = createJwksCache(async () => ({ keys: [] }));
    gateway = await startTestGateway({ keys: empty.resolver });
    expect((await gateway.fetch('/api/v1/nodes', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });
});
