import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createNode, expectProblem, newTenant } from '../e2e/support/client';
import { openStream, type Sse } from '../e2e/support/sse';
import { control } from './support/cluster-api';

const credentialEnded = (e: Sse) => e.event === 'credential.ended';

/**
 * GET /events held by another gateway process than the one that revoked its credential: the
 * auth service's api_key.revoked and session.revoked events (outbox, Kafka) reach every
 * replica, which ends the streams it holds. The stream caps are counted in Redis, so they span
 * the replicas.
 */
describe('event streams on a second gateway replica end with their credential', () => {
  let replica: string;
  beforeAll(async () => {
    await control('start', 'gateway-replica');
    replica = `${inject('serviceUrls')['gateway-replica']!}/api/v1`;
  }, 120_000);
  afterAll(async () => {
    await control('stop', 'gateway-replica');
  }, 60_000);

  it('an API key revoked through the first gateway ends the stream the replica holds', async () => {
    const s = await newTenant('dist-events-key');
    const created = await api<{ id: string; key: string }>('POST', '/auth/api-keys', {
      auth: s.bearer,
      body: { name: 'replica-stream' },
    });
    const stream = await openStream(`ApiKey ${created.body.key}`, replica);
    try {
      const node = await createNode(s.bearer, { title: 'heard on the replica' });
      await stream.until((e) => e.event === 'node.created' && JSON.stringify(e.data).includes(node.id), 30_000);
      expect((await api('DELETE', `/auth/api-keys/${created.body.id}`, { auth: s.bearer })).status).toBe(204);
      const last = await stream.until(credentialEnded, 30_000);
      expect(last.data).toMatchObject({ reason: 'revoked' });
      await stream.closedByServer(30_000);
    } finally {
      await stream.close();
    }
  });

  it('signing out through the first gateway ends the session’s stream on the replica', async () => {
    const s = await newTenant('dist-events-logout');
    const stream = await openStream(s.bearer, replica);
    try {
      expect((await api('POST', '/auth/logout', { body: { refresh_token: s.refresh_token } })).status).toBe(204);
      const last = await stream.until(credentialEnded, 30_000);
      expect(last.data).toMatchObject({ reason: 'signed_out' });
      await stream.closedByServer(30_000);
    } finally {
      await stream.close();
    }
  });

  it('the per-credential cap counts the streams of every replica (Redis)', async () => {
    const s = await newTenant('dist-events-cap');
    const created = await api<{ id: string; key: string }>('POST', '/auth/api-keys', {
      auth: s.bearer,
      body: { name: 'capped' },
    });
    const auth = `ApiKey ${created.body.key}`;
    const held = [];
    try {
      for (let i = 0; i < 5; i++) held.push(await openStream(auth));
      for (let i = 0; i < 5; i++) held.push(await openStream(auth, replica));
      const over = await fetch(`${replica}/events`, { headers: { authorization: auth } });
      expectProblem({ status: over.status, headers: over.headers, body: JSON.parse(await over.text()) }, 429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await Promise.all(held.map((h) => h.close()));
    }
  });
});
