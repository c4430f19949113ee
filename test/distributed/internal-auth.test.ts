import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createInternalTokens } from '@kg/tokens';

describe('internal calls', () => {
  it('a service reached directly answers 401 without a valid internal token', async () => {
    const graph = inject('serviceUrls')['graph'];
    const url = `${graph}/trpc/nodes.list?input=${encodeURIComponent('{}')}`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { 'x-internal-token': 'garbage' } })).status).toBe(401);
    const tokens = createInternalTokens(inject('internalSecret'));
    const wrongAudience = await tokens.sign('gateway', 'auth', null);
    expect((await fetch(url, { headers: { 'x-internal-token': wrongAudience } })).status).toBe(401);
    const forged = await createInternalTokens('x'.repeat(40)).sign('gateway', 'graph', null);
    expect((await fetch(url, { headers: { 'x-internal-token': forged } })).status).toBe(401);
    expect((await fetch(`${graph}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${graph}/metrics`)).text()).toContain('kg_http_request_duration_seconds');
  });
});
