import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { query } from '@kg/contracts';
import { connectService, defineRouter } from '@kg/trpc';
import { serveService } from './serve';

const contract = {
  text: { length: query('service', z.object({ text: z.string() }), z.object({ length: z.number() }), ['gateway']) },
} as const;

const router = defineRouter(contract, { text: { length: async ({ input }) => ({ length: input.text.length }) } });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

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
    logger: silent,
  } as unknown as Parameters<typeof serveService>[0]);
  const address = served.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => served.close());

describe('a query with a long input, between processes', () => {
  it('travels in the body, not the URL (a 10,000-character text escapes to ~30 KB, past the 16 KiB request head)', async () => {
    const signer = { service: 'gateway', sign: async () => 't' };
    const client = connectService('gateway', 'probe', contract, { kind: 'http', url: `${base}/trpc`, signer } as never);
    const text = 'é "quoted" & spaced '.repeat(1_000);
    expect(await client.as(null).text.length({ text })).toEqual({ length: text.length });
  });
});
