import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TRPCClientError } from '@trpc/client';
import { mutation, notFound, query } from '@kg/contracts';
import { connectService } from './client';
import { defineRouter } from './define-router';
import { problemFromClientError } from './client-error';

const contract = {
  items: {
    get: query('tenant', z.object({ id: z.string() }), z.object({ id: z.string(), tenant: z.string() }), ['gateway']),
    create: mutation('service', z.object({ name: z.string().min(1) }), z.object({ name: z.string() }), [
      'gateway',
      'graph',
    ]),
  },
} as const;

const router = defineRouter(contract, {
  items: {
    get: async ({ input, ctx }) => {
      if (input.id === 'missing') throw notFound('Item');
      return { id: input.id, tenant: ctx.identity.tenantId };
    },
    create: async ({ input }) => ({ name: input.name }),
  },
});

const identity = {
  tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
  subject: 'u',
  credential: { kind: 'jwt' as const, id: 'j' },
};
const handle = connectService('gateway', 'items', contract, { kind: 'local', router });

async function problemOf(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCClientError);
  return problemFromClientError(err, 'items');
}

describe('defineRouter + connectService (in-process transport)', () => {
  it('passes identity and validated input to handlers', async () => {
    expect(await handle.as(identity).items.get({ id: 'a' })).toEqual({ id: 'a', tenant: identity.tenantId });
  });

  it('maps typed domain errors to problem data with the HTTP status', async () => {
    expect(await problemOf(handle.as(identity).items.get({ id: 'missing' }))).toMatchObject({
      status: 404,
      title: 'Not found',
      detail: 'Item not found',
    });
  });

  it('rejects invalid input with field errors', async () => {
    const p = await problemOf(handle.as(null).items.create({ name: '' }));
    expect(p?.status).toBe(400);
    expect(p?.errors?.[0]?.path).toBe('name');
  });

  it('refuses tenant procedures without an identity', async () => {
    expect((await problemOf(handle.as(null).items.get({ id: 'a' })))?.status).toBe(401);
  });

  it('refuses a caller the contract does not list with 403, before input or identity are looked at', async () => {
    const worker = connectService('ingest-worker', 'items', contract, { kind: 'local', router });
    expect(await problemOf(worker.as(identity).items.get({ id: 'a' }))).toMatchObject({
      status: 403,
      title: 'Forbidden',
      detail: 'The ingest-worker service may not call items.get',
    });
    expect((await problemOf(worker.as(null).items.create({ name: '' })))?.status).toBe(403);
    expect((await problemOf(worker.as(null).items.get({ id: 'a' })))?.status).toBe(403);
  });

  it('lets each listed caller through, per procedure', async () => {
    const graph = connectService('graph', 'items', contract, { kind: 'local', router });
    expect(await graph.as(null).items.create({ name: 'n' })).toEqual({ name: 'n' });
    expect((await problemOf(graph.as(identity).items.get({ id: 'a' })))?.status).toBe(403);
  });

  it('hides unexpected errors behind a generic 500', async () => {
    const broken = defineRouter(contract, {
      items: {
        get: async () => {
          throw new Error('select * from secret_table failed');
        },
        create: async ({ input }) => input,
      },
    });
    const client = connectService('gateway', 'items', contract, { kind: 'local', router: broken }).as(identity);
    const p = await problemOf(client.items.get({ id: 'x' }));
    expect(p).toMatchObject({ status: 500, detail: 'An unexpected error occurred' });
    expect(JSON.stringify(p)).not.toContain('secret_table');
  });

  it('hands the callee’s checked answer over as it is: no JSON copy, no second parse', async () => {
    const withDate = {
      items: {
        at: query('service', z.object({}), z.object({ at: z.date(), extra: z.string().optional() }), ['gateway']),
      },
    } as const;
    const at = new Date('2026-11-23T00:00:00Z');
    const r = defineRouter(withDate, { items: { at: async () => ({ at }) } });
    // A JSON round trip would turn the date into a string (and the client's own parse would then refuse it).
    const answer = await connectService('gateway', 'items', withDate, { kind: 'local', router: r })
      .as(null)
      .items.at({});
    expect(answer.at).toBeInstanceOf(Date);
    expect(answer.at.getTime()).toBe(at.getTime());
  });

  it('still refuses an answer outside the contract (the callee checks its output)', async () => {
    const lying = defineRouter(contract, {
      items: { get: async () => ({ id: 'a' }) as never, create: async ({ input }) => input },
    });
    const client = connectService('gateway', 'items', contract, { kind: 'local', router: lying }).as(identity);
    expect((await problemOf(client.items.get({ id: 'a' })))?.status).toBe(500);
  });
});

describe('asJson (the answer as JSON text, in-process)', () => {
  it('answers the checked answer’s JSON, and fails as `as` does', async () => {
    const json = handle.asJson(identity);
    expect(JSON.parse(await json.items.get({ id: 'a' }))).toEqual({ id: 'a', tenant: identity.tenantId });
    expect(await problemOf(json.items.get({ id: 'missing' }))).toMatchObject({ status: 404, detail: 'Item not found' });
    expect((await problemOf(handle.asJson(null).items.get({ id: 'a' })))?.status).toBe(401);
  });

  it('refuses a mutation: only queries are forwarded as text', () => {
    expect(() => handle.asJson(null).items.create).toThrow('items.create is a mutation');
  });
});
