import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { JWK } from 'jose';
import { createInternalTokenSigner, generateInternalKeyPair } from '@kg/tokens';
import { signerOf } from './support/cluster-api';

/** Calls a procedure of `service` over HTTP exactly as `caller` would: a token signed with `caller`'s own key. */
async function callAs(
  caller: 'gateway' | 'graph' | 'ingest-worker',
  service: string,
  procedure: string,
  input: unknown,
  kind: 'query' | 'mutation' = 'mutation',
) {
  const token = await signerOf(caller).sign(service, null);
  const url = `${inject('serviceUrls')[service]}/trpc/${procedure}`;
  const headers = { 'x-internal-token': token, 'content-type': 'application/json' };
  const res =
    kind === 'query'
      ? await fetch(`${url}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
      : await fetch(url, { method: 'POST', headers, body: JSON.stringify(input) });
  const body = (await res.json()) as { error?: { data?: { problem?: { status: number; detail: string } } } };
  return { status: res.status, problem: body.error?.data?.problem };
}

describe('internal calls', () => {
  it('a service reached directly answers 401 without a valid internal token', async () => {
    const graph = inject('serviceUrls')['graph'];
    const url = `${graph}/trpc/nodes.list?input=${encodeURIComponent('{}')}`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { 'x-internal-token': 'garbage' } })).status).toBe(401);
    const wrongAudience = await signerOf('gateway').sign('auth', null);
    expect((await fetch(url, { headers: { 'x-internal-token': wrongAudience } })).status).toBe(401);
    // A token that names the gateway but is signed with another key: a stranger's, or the ingest worker's real one.
    const { privateJwk } = await generateInternalKeyPair();
    const stranger = await (await createInternalTokenSigner('gateway', privateJwk)).sign('graph', null);
    expect((await fetch(url, { headers: { 'x-internal-token': stranger } })).status).toBe(401);
    const workerKey = JSON.parse(inject('internalSigningKeys')['ingest-worker']!) as JWK;
    const impostor = await (await createInternalTokenSigner('gateway', workerKey)).sign('graph', null);
    expect((await fetch(url, { headers: { 'x-internal-token': impostor } })).status).toBe(401);
    expect((await fetch(`${graph}/healthz`)).status).toBe(200);
    // Metrics live on their own port; the service port does not serve them.
    expect((await fetch(`${graph}/metrics`)).status).toBe(404);
    const metrics = await fetch(`${inject('metricsUrls')['graph']}/metrics`);
    expect(await metrics.text()).toContain('kg_http_request_duration_seconds');
  });

  it('a service calling a procedure its contract does not list is refused with 403, in its own name', async () => {
    // The ingest worker (it handles untrusted content) has no business with auth: its real key, its own name.
    const verify = await callAs('ingest-worker', 'auth', 'apiKeys.verify', { key: 'kg_x.y' });
    expect(verify).toEqual({
      status: 403,
      problem: expect.objectContaining({
        status: 403,
        detail: 'The ingest-worker service may not call apiKeys.verify',
      }),
    });
    expect((await callAs('ingest-worker', 'auth', 'magicLink.request', { email: 'a@example.com' })).status).toBe(403);
    // The same procedure for its one caller, the gateway: past the allowlist (an unknown key is 401 from auth itself).
    expect(await callAs('gateway', 'auth', 'apiKeys.verify', { key: 'kg_x.y' })).toMatchObject({
      status: 401,
      problem: { status: 401 },
    });
    // PARA items are resolved for the graph service only, not the gateway (refused before the identity check).
    expect((await callAs('gateway', 'para', 'items.resolve', { ids: [] }, 'query')).status).toBe(403);
    expect((await callAs('graph', 'para', 'items.resolve', { ids: [] }, 'query')).problem?.detail).toBe(
      'This call needs an identity',
    );
  });
});
