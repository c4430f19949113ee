import { describe, expect, it } from 'vitest';
import { api, createNode, expectProblem, newTenant, remember } from './support/client';

type Health = {
  total_nodes: number;
  validated_nodes: number;
  total_captures: number;
  pending_captures: number;
  processing_captures: number;
  failed_captures: number;
  total_links: number;
  stale_nodes: number;
};

describe('GET /graph-health', () => {
  it('follows every write: nodes, validation, links, deletion', async () => {
    const s = await newTenant('health');
    const health = async () => (await api<Health>('GET', '/graph-health', { auth: s.bearer })).body;
    expect(await health()).toEqual({
      total_nodes: 0,
      validated_nodes: 0,
      total_captures: 0,
      pending_captures: 0,
      processing_captures: 0,
      failed_captures: 0,
      total_links: 0,
      stale_nodes: 0,
    });
    const a = await createNode(s.bearer, { title: 'a' });
    const b = await createNode(s.bearer, { title: 'b' });
    const c = await createNode(s.bearer, { title: 'c' });
    await api('PATCH', `/nodes/${a.id}/links`, {
      auth: s.bearer,
      body: {
        links: [
          { target_id: b.id, type: 'related' },
          { target_id: c.id, type: 'related' },
        ],
      },
    });
    await api('PATCH', `/nodes/${b.id}`, { auth: s.bearer, body: { status: 'validated' } });
    expect(await health()).toMatchObject({ total_nodes: 3, validated_nodes: 1, total_links: 2, stale_nodes: 0 });
    await api('PATCH', `/nodes/${b.id}`, { auth: s.bearer, body: { status: 'validated' } });
    expect((await health()).validated_nodes).toBe(1);
    await api('DELETE', `/nodes/${b.id}`, { auth: s.bearer });
    expect(await health()).toMatchObject({ total_nodes: 2, validated_nodes: 0, total_links: 1 });
  });
});

describe('graph rate limit', () => {
  it('answers 429 with Retry-After and RateLimit headers past the per-minute quota', async () => {
    const s = await newTenant('ratelimit');
    const { body } = await api('POST', '/auth/api-keys', { auth: s.bearer, body: { name: 'burst' } });
    remember(body.key);
    const auth = `ApiKey ${body.key}`;
    let last = await api('GET', '/graph-health', { auth });
    const limit = Number(last.headers.get('ratelimit-limit'));
    expect(limit).toBeGreaterThan(0);
    expect(Number(last.headers.get('ratelimit-remaining'))).toBe(limit - 1);
    for (let i = 1; i < limit && last.status === 200; i++) last = await api('GET', '/graph-health', { auth });
    expect(last.status).toBe(200);
    const limited = await api('GET', '/graph-health', { auth });
    expectProblem(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expectProblem(await api('GET', '/graph/seed', { auth: s.bearer }), 429);
    expect((await api('GET', '/nodes', { auth })).status).toBe(200);
  }, 60_000);
});
