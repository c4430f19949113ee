import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mutation, query, type Identity } from '@kg/contracts';
import { connectService, createReplicaSet, defineRouter, rendezvousOrder, type ReplicaSet } from '@kg/trpc';
import { serveService } from './serve';

const contract = {
  who: query('service', z.object({}), z.object({ replica: z.string() }), ['gateway']),
  write: mutation('service', z.object({ n: z.number() }), z.object({ replica: z.string() }), ['gateway']),
} as const;

type Served = Awaited<ReturnType<typeof serveService>>;

/** Three replicas of a probe service, each answering with its own name. */
const replicas: { name: string; url: string; served: Served }[] = [];
const serve = async (name: string, port = 0) => {
  const router = defineRouter(contract, {
    who: async () => ({ replica: name }),
    write: async () => ({ replica: name }),
  });
  const served = await serveService({
    module: { name: 'probe', router, start: async () => {}, stop: async () => {}, ready: async () => true },
    port,
    host: '127.0.0.1',
    metricsPort: 0,
    verifier: { verify: async () => ({ caller: 'gateway', identity: null }) },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  } as unknown as Parameters<typeof serveService>[0]);
  const address = served.server.address();
  return { name, served, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
};

beforeAll(async () => {
  for (const name of ['a', 'b', 'c']) replicas.push(await serve(name));
});
afterAll(() => Promise.all(replicas.map((r) => r.served.close())));

const signer = { service: 'gateway', sign: async () => 't' };
const identity = (tenantId: string) =>
  ({ tenantId, subject: 'u', credential: { kind: 'api_key', id: 'k' } }) as unknown as Identity;
const handle = (set: ReplicaSet) =>
  connectService('gateway', 'probe', contract, {
    kind: 'replicated',
    replicas: set,
    signer,
    timeoutMs: 2_000,
  } as never);
const nameOf = (url: string) => replicas.find((r) => r.url === url)!.name;

describe('a service reached through its replicas', () => {
  it('sends every call of a tenant (query, mutation, JSON answer) to its owner, and spreads 30 tenants over all three', async () => {
    const urls = replicas.map((r) => r.url);
    const probe = handle(createReplicaSet({ urls: () => urls, routing: 'tenant' }));
    const owners = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const tenant = `tenant-${i}`;
      const owner = nameOf(rendezvousOrder(tenant, urls)[0]!);
      const client = probe.as(identity(tenant));
      expect((await client.who({})).replica).toBe(owner);
      expect((await client.write({ n: i })).replica).toBe(owner);
      expect(JSON.parse(await probe.asJson(identity(tenant)).who({}))).toEqual({ replica: owner });
      owners.add(owner);
    }
    expect(owners.size).toBe(3);
  });

  it('round-robin spreads one tenant’s calls over every replica', async () => {
    const probe = handle(createReplicaSet({ urls: () => replicas.map((r) => r.url), routing: 'round-robin' }));
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) seen.add((await probe.as(identity('tenant-1')).who({})).replica);
    expect(seen.size).toBe(3);
  });

  it('sends an owner’s tenants to their next replica while it is down, mutations included, and back once it is up', async () => {
    const urls = replicas.map((r) => r.url);
    const probe = handle(createReplicaSet({ urls: () => urls, routing: 'tenant', downForMs: 300 }));
    const tenant = 'tenant-7';
    const [first, second] = rendezvousOrder(tenant, urls);
    const down = replicas.find((r) => r.url === first)!;
    const port = Number(new URL(down.url).port);
    await down.served.close();
    const started = Date.now();
    expect((await probe.as(identity(tenant)).who({})).replica).toBe(nameOf(second!));
    expect((await probe.as(identity(tenant)).write({ n: 1 })).replica).toBe(nameOf(second!));
    expect(JSON.parse(await probe.asJson(identity(tenant)).who({}))).toEqual({ replica: nameOf(second!) });
    // A refused connection goes on at once: no retry delays on the replica that is down.
    expect(Date.now() - started).toBeLessThan(1_000);
    // Back on its port: the tenant returns to it once its time out is over.
    const back = await serve(down.name, port);
    replicas[replicas.indexOf(down)] = back;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await probe.as(identity(tenant)).who({})).replica).toBe(down.name);
  });
});
