import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newTenant } from '../e2e/support/client';
import { rawUpload } from '../e2e/support/raw-upload';
import { control } from './support/cluster-api';

/** Defaults of the gateways' settings (README "Limits"). */
const PARA_JOBS_PER_MINUTE = 20;
const UPLOADS_IN_PROGRESS_PER_TENANT = 4;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The limits live in Redis: two gateway replicas count one tenant's requests together,
 * whichever replica each request reaches.
 */
describe('per-tenant limits across gateway replicas', () => {
  let gateways: string[];
  beforeAll(async () => {
    await control('start', 'gateway-replica');
    gateways = [`${inject('baseUrl')}/api/v1`, `${inject('serviceUrls')['gateway-replica']!}/api/v1`];
  }, 120_000);
  afterAll(async () => {
    await control('stop', 'gateway-replica');
  }, 60_000);

  it('PARA jobs started through either replica share the tenant’s job limit', async () => {
    const [a, b] = await Promise.all([newTenant('limits-replicas-a'), newTenant('limits-replicas-b')]);
    const create = (base: string, auth: string, i: number) =>
      fetch(`${base}/para`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ category: 'resources', label: `Shelf ${i}` }),
      });
    for (let i = 0; i < PARA_JOBS_PER_MINUTE; i++) {
      const res = await create(gateways[i % 2]!, a.bearer, i);
      expect(res.status, await res.text()).toBe(201);
    }
    for (const base of gateways) {
      const refused = await create(base, a.bearer, 99);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('ratelimit-policy')).toBe(`"para-jobs";q=${PARA_JOBS_PER_MINUTE};w=60`);
      expect(refused.headers.get('ratelimit')).toMatch(/^"para-jobs";r=0;t=\d+$/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await create(gateways[1]!, b.bearer, 0)).status).toBe(201);
  });

  it('uploads in progress are counted across replicas: one more than the limit is refused on either', async () => {
    const [a, b] = await Promise.all([newTenant('limits-inflight-a'), newTenant('limits-inflight-b')]);
    // Held uploads (their bodies not sent) on both replicas; a probe can reach a slot before
    // one of them does (that one is then refused once its body is sent): then another round.
    for (let round = 1; ; round++) {
      const held = Array.from({ length: UPLOADS_IN_PROGRESS_PER_TENANT }, (_, i) =>
        rawUpload(gateways[i % 2]!, a.bearer, 1000, { hold: true }),
      );
      await sleep(300 * round); // a head start, not an assertion
      const probe = await rawUpload(gateways[round % 2]!, a.bearer, 10).answer;
      if (probe.status === 429) {
        expect(probe.body.detail).toContain(`${UPLOADS_IN_PROGRESS_PER_TENANT} uploads in progress`);
        expect(Number(probe.headers['retry-after'])).toBeGreaterThan(0);
        // Another tenant is not held back by A's uploads.
        expect((await rawUpload(gateways[round % 2]!, b.bearer, 10).answer).status).toBe(201);
        for (const h of held) await h.finish();
        expect((await Promise.all(held.map((h) => h.answer))).map((r) => r.status)).toEqual(
          Array(UPLOADS_IN_PROGRESS_PER_TENANT).fill(201),
        );
        // Their slots are free again, on both replicas.
        for (const base of gateways) expect((await rawUpload(base, a.bearer, 10).answer).status).toBe(201);
        return;
      }
      expect(probe.status, JSON.stringify(probe.body)).toBe(201);
      expect(round, 'no round held every slot').toBeLessThan(4);
      for (const h of held) await h.finish();
      await Promise.all(held.map((h) => h.answer));
    }
  }, 120_000);
});
