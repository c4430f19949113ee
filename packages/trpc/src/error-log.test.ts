import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { notFound, query } from '@kg/contracts';
import { connectService } from './client';
import { defineRouter } from './define-router';
import { withRequestId } from './request-context';

const contract = {
  items: {
    get: query('service', z.object({ id: z.string() }), z.object({ id: z.string() }), ['gateway']),
  },
} as const;

const router = defineRouter(contract, {
  items: {
    get: async ({ input }) => {
      if (input.id === 'missing') throw notFound('Item');
      if (input.id === 'bad-output') return { id: 1 } as never;
      throw new Error('select * from secret_table failed');
    },
  },
});

/** A logger that keeps its error lines (the ErrorLogger port: any pino logger fits it). */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: { error: (fields: object, msg: string) => lines.push({ ...fields, msg, level: 'error' }) } };
}

describe('unexpected errors in a procedure (in-process transport)', () => {
  it('are logged once, at error level, by the called service, with stack and request id', async () => {
    const { lines, logger } = capture();
    const client = connectService('gateway', 'items', contract, { kind: 'local', router, logger }).as(null);
    await expect(withRequestId('req-42', () => client.items.get({ id: 'x' }))).rejects.toThrow();
    await expect(withRequestId('req-43', () => client.items.get({ id: 'bad-output' }))).rejects.toThrow();
    const errors = lines.filter((l) => l['level'] === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({
      msg: 'procedure failed',
      path: 'items.get',
      requestId: 'req-42',
      caller: 'gateway',
    });
    expect((errors[0]!['err'] as Error).stack).toContain('secret_table');
    expect(errors[1]).toMatchObject({ requestId: 'req-43' });
  });

  it('leave expected errors (typed domain errors, bad input) unlogged', async () => {
    const { lines, logger } = capture();
    const client = connectService('gateway', 'items', contract, { kind: 'local', router, logger }).as(null);
    await expect(client.items.get({ id: 'missing' })).rejects.toThrow();
    await expect(client.items.get({ id: 7 as never })).rejects.toThrow();
    expect(lines).toEqual([]);
  });
});
