import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, createNode, expectProblem, newTenant } from '../e2e/support/client';
import { control, eventually } from './support/cluster-api';

describe('a service that is down', () => {
  afterAll(() => control('start', 'graph'));

  it('turns into 503 problem+json quickly (not 500, not a hang), and readiness follows it', async () => {
    const s = await newTenant('down');
    const before = await createNode(s.bearer, { title: 'Before the crash' });
    await control('stop', 'graph', { signal: 'SIGKILL' });
    const started = Date.now();
    const res = await api('GET', `/nodes/${before.id}`, { auth: s.bearer });
    expectProblem(res, 503);
    expect(Date.now() - started).toBeLessThan(5000);
    expectProblem(await api('POST', '/nodes', { auth: s.bearer, body: { title: 'while down' } }), 503);
    expect((await fetch(`${inject('baseUrl')}/readyz`)).status).toBe(503);
    await control('start', 'graph');
    await eventually(async () => (await fetch(`${inject('baseUrl')}/readyz`)).status === 200, 30_000);
    expect((await api('GET', `/nodes/${before.id}`, { auth: s.bearer })).body).toMatchObject({
      title: 'Before the crash',
    });
  }, 120_000);
});
