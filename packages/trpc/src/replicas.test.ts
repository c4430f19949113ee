import { describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { createReplicaSet, isConnectFailure, rendezvousOrder } from './replicas';

const REPLICAS = ['http://10.0.0.1:4002', 'http://10.0.0.2:4002', 'http://10.0.0.3:4002'];
const TENANTS = Array.from({ length: 300 }, (_, i) => `tenant-${i}`);
const owner = (tenant: string, urls: readonly string[]) => rendezvousOrder(tenant, urls)[0]!;

describe('rendezvous order', () => {
  it('gives each tenant one owner, the same whatever the order of the list, and spreads the tenants evenly', () => {
    const counts = new Map<string, number>();
    for (const t of TENANTS) {
      const o = owner(t, REPLICAS);
      expect(owner(t, [...REPLICAS].reverse())).toBe(o);
      expect(rendezvousOrder(t, REPLICAS)).toHaveLength(3);
      counts.set(o, (counts.get(o) ?? 0) + 1);
    }
    // 300 tenants over 3 replicas: each owns between 70 and 130 (binomial, p = 1/3, > 5 sigma).
    for (const url of REPLICAS) expect(counts.get(url)).toBeGreaterThan(70);
    for (const url of REPLICAS) expect(counts.get(url)).toBeLessThan(130);
  });

  it('moves only the tenants of a replica that leaves, and only to a replica that joins', () => {
    const two = REPLICAS.slice(0, 2);
    const four = [...REPLICAS, 'http://10.0.0.4:4002'];
    for (const t of TENANTS) {
      const before = owner(t, REPLICAS);
      // The one that left: its tenants go to their second choice; the others keep theirs.
      if (before !== REPLICAS[2]) expect(owner(t, two)).toBe(before);
      else expect(owner(t, two)).toBe(rendezvousOrder(t, REPLICAS)[1]);
      const after = owner(t, four);
      expect([before, four[3]]).toContain(after);
    }
  });
});

describe('replica set', () => {
  it('with tenant routing, puts the owner first and an unreachable replica last until its time is up', () => {
    let now = 0;
    const set = createReplicaSet({ urls: () => REPLICAS, routing: 'tenant', downForMs: 5_000, now: () => now });
    const order = set.order('tenant-1');
    expect(order).toEqual(rendezvousOrder('tenant-1', REPLICAS));
    set.unreachable(order[0]!);
    expect(set.order('tenant-1')).toEqual([order[1], order[2], order[0]]);
    now = 5_001;
    expect(set.order('tenant-1')).toEqual(order);
  });

  it('takes the replicas in turn for round-robin and for calls of no tenant', () => {
    const rr = createReplicaSet({ urls: () => REPLICAS, routing: 'round-robin' });
    expect([0, 1, 2, 3].map(() => rr.order('tenant-1')[0])).toEqual([...REPLICAS, REPLICAS[0]]);
    const tenant = createReplicaSet({ urls: () => REPLICAS, routing: 'tenant' });
    expect(new Set([0, 1, 2].map(() => tenant.order(null)[0])).size).toBe(3);
  });

  it('follows the list it is given at every call', () => {
    let urls = REPLICAS;
    const set = createReplicaSet({ urls: () => urls, routing: 'tenant' });
    expect(set.order('t')).toHaveLength(3);
    urls = REPLICAS.slice(0, 1);
    expect(set.order('t')).toEqual(REPLICAS.slice(0, 1));
  });
});

describe('isConnectFailure', () => {
  it('finds a refused connection through the errors that wrap it, and nothing else', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(isConnectFailure(new TRPCClientError('unreachable', { cause: refused }))).toBe(true);
    expect(isConnectFailure(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isConnectFailure(new TRPCClientError('timed out'))).toBe(false);
    expect(isConnectFailure(null)).toBe(false);
  });
});
