import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, createNode, expectProblem, newTenant } from '../e2e/support/client';
import { control, eventually } from './support/cluster-api';

const gatewayReadiness = async () => (await fetch(`${inject('baseUrl')}/readyz`)).status;

/**
 * The gateway is ready when its own dependency (Redis) is, never because of its peers: a
 * peer that is down turns only its own routes into 503, and the gateway stays in rotation.
 */
describe('a service that is down', () => {
  afterAll(async () => {
    for (const name of ['graph', 'para', 'search']) await control('start', name);
  });

  it('turns its routes into 503 problem+json quickly (not 500, not a hang); the gateway stays ready', async () => {
    const s = await newTenant('down');
    const before = await createNode(s.bearer, { title: 'Before the crash' });
    await control('stop', 'graph', { signal: 'SIGKILL' });
    const started = Date.now();
    const res = await api('GET', `/nodes/${before.id}`, { auth: s.bearer });
    expectProblem(res, 503);
    expect(Date.now() - started).toBeLessThan(5000);
    expectProblem(await api('POST', '/nodes', { auth: s.bearer, body: { title: 'while down' } }), 503);
    expect(await gatewayReadiness()).toBe(200);
    // Routes of the other services keep answering.
    expect((await api('GET', '/para/tree', { auth: s.bearer })).status).toBe(200);
    await control('start', 'graph');
    await eventually(async () => (await api('GET', `/nodes/${before.id}`, { auth: s.bearer })).status === 200);
    expect((await api('GET', `/nodes/${before.id}`, { auth: s.bearer })).body).toMatchObject({
      title: 'Before the crash',
    });
  }, 120_000);

  it('with para down, /para answers 503 while nodes, sign-in and readiness carry on', async () => {
    const s = await newTenant('para-down');
    const node = await createNode(s.bearer, { title: 'Still here' });
    await control('stop', 'para', { signal: 'SIGKILL' });
    expectProblem(await api('GET', '/para/tree', { auth: s.bearer }), 503);
    expect(await gatewayReadiness()).toBe(200);
    expect((await api('GET', `/nodes/${node.id}`, { auth: s.bearer })).status).toBe(200);
    expect(
      (await api('POST', '/nodes', { auth: s.bearer, body: { title: 'written while para is down' } })).status,
    ).toBe(201);
    await newTenant('signs-in-while-para-is-down');
    await control('start', 'para');
    expect((await api('GET', '/para/tree', { auth: s.bearer })).status).toBe(200);
  }, 120_000);

  it('with search down, the gateway stays ready and the graph routes keep answering', async () => {
    const s = await newTenant('search-down');
    await control('stop', 'search', { signal: 'SIGKILL' });
    expect(await gatewayReadiness()).toBe(200);
    const node = await createNode(s.bearer, { title: 'Indexed later' });
    expect((await api('GET', `/nodes/${node.id}`, { auth: s.bearer })).status).toBe(200);
    expect((await api('GET', '/nodes', { auth: s.bearer })).status).toBe(200);
    await control('start', 'search');
    expect(await gatewayReadiness()).toBe(200);
  }, 120_000);
});
