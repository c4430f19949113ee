import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { query } from '@kg/contracts';
import { connectService, defineRouter, withRequestId } from '@kg/trpc';
import { serveService } from './serve';

const contract = {
  items: { get: query('service', z.object({ id: z.string() }), z.object({ id: z.string() }), ['gateway']) },
} as const;

const router = defineRouter(contract, {
  items: {
    get: async () => {
      throw new Error('select * from secret_table failed');
    },
  },
});

const errors: Array<Record<string, unknown>> = [];
const logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (fields: Record<string, unknown>, msg: string) => errors.push({ ...fields, msg }),
};

let served: Awaited<ReturnType<typeof serveService>>;
let base: string;
beforeAll(async () => {
  served = await serveService({
    module: { name: 'probe', router, start: async () => {}, stop: async () => {}, ready: async () => true },
    port: 0,
    host: '127.0.0.1',
    metricsPort: 0,
    // Any token is the gateway's here: token checks have their own tests.
    verifier: { verify: async () => ({ caller: 'gateway', identity: null }) },
    logger,
  } as unknown as Parameters<typeof serveService>[0]);
  const address = served.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => served.close());

describe('a procedure that fails unexpectedly, served over HTTP', () => {
  it('is logged once, at error level, with its stack and the caller’s request id; the answer has no details', async () => {
    const input = encodeURIComponent(JSON.stringify({ id: 'x' }));
    const res = await fetch(`${base}/trpc/items.get?input=${input}`, {
      headers: { 'x-internal-token': 't', 'x-request-id': 'req-77' },
    });
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('secret_table');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ msg: 'procedure failed', path: 'items.get', requestId: 'req-77' });
    expect((errors[0]!['err'] as Error).stack).toContain('secret_table');
  });

  it('gets the request id from a client in another process (x-request-id, set by connectService)', async () => {
    errors.length = 0;
    const signer = { service: 'gateway', sign: async () => 't' };
    const client = connectService('gateway', 'probe', contract, {
      kind: 'http',
      url: `${base}/trpc`,
      signer,
    } as never).as(null);
    await expect(withRequestId('req-88', () => client.items.get({ id: 'x' }))).rejects.toThrow();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ requestId: 'req-88', caller: 'gateway' });
  });
});
