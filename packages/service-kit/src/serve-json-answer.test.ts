import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TRPCClientError } from '@trpc/client';
import { notFound, query } from '@kg/contracts';
import { connectService, defineRouter, problemFromClientError } from '@kg/trpc';
import { serveService } from './serve';

const contract = {
  views: {
    get: query('service', z.object({ id: z.string() }), z.object({ id: z.string(), title: z.string() }), ['gateway']),
  },
} as const;

let calls = 0;
const router = defineRouter(contract, {
  views: {
    get: async ({ input }) => {
      calls++;
      if (input.id === 'missing') throw notFound('View');
      // An extra field the contract strips: the text forwarded is the checked answer, not the handler's object.
      return { id: input.id, title: `“${input.id}” }}`, secret: 'stripped' } as never;
    },
  },
});

let served: Awaited<ReturnType<typeof serveService>>;
let url: string;
const signer = { service: 'gateway', sign: async () => 't' };
beforeAll(async () => {
  served = await serveService({
    module: { name: 'probe', router, start: async () => {}, stop: async () => {}, ready: async () => true },
    port: 0,
    host: '127.0.0.1',
    metricsPort: 0,
    verifier: {
      verify: async (token: string) => {
        if (token !== 't') throw new Error('bad token');
        return { caller: 'gateway', identity: null };
      },
    },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  } as unknown as Parameters<typeof serveService>[0]);
  const address = served.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/trpc`;
});
afterAll(() => served.close());

const client = (u: string, s = signer) =>
  connectService('gateway', 'probe', contract, { kind: 'http', url: u, signer: s, timeoutMs: 2_000 } as never);

describe('asJson over HTTP', () => {
  it('passes the peer’s checked answer on as the text it wrote', async () => {
    const text = await client(url).asJson(null).views.get({ id: 'a' });
    expect(text).toBe(JSON.stringify({ id: 'a', title: '“a” }}' }));
    expect(text).toBe(JSON.stringify(await client(url).as(null).views.get({ id: 'a' })));
  });

  it('raises the callee’s problem (404) as `as` does, without retrying it', async () => {
    calls = 0;
    const err = await client(url)
      .asJson(null)
      .views.get({ id: 'missing' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(problemFromClientError(err, 'probe')).toMatchObject({ status: 404, detail: 'View not found' });
    expect(calls).toBe(1);
  });

  it('a refused token or an unreachable peer is a 503 for the caller, not a 500', async () => {
    const refused = await client(url, { service: 'gateway', sign: async () => 'forged' })
      .asJson(null)
      .views.get({ id: 'a' })
      .catch((e: unknown) => e);
    expect(problemFromClientError(refused, 'probe')?.status).toBe(503);
    const unreachable = await client('http://127.0.0.1:9/trpc')
      .asJson(null)
      .views.get({ id: 'a' })
      .catch((e: unknown) => e);
    expect(problemFromClientError(unreachable, 'probe')?.status).toBe(503);
  });
});
