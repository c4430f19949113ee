import { describe, expect, it } from 'vitest';
import { capturesApi } from '@kg/contracts';
import { connectService } from '@kg/trpc';
import { createCapturesRouter } from './router';

describe('captures router', () => {
  it('is mounted and answers its info procedure', async () => {
    const client = connectService('gateway', 'captures', capturesApi, {
      kind: 'local',
      router: createCapturesRouter(),
    }).as(null);
    expect(await client.info({})).toEqual({ service: 'captures', version: '0.1.0', features: [] });
  });

  it('counts captures for graph health (none exist before the captures feature)', async () => {
    const identity = {
      tenantId: 'tnt_01jd8x6q1bf5r3v2m9w7k4t0za',
      subject: 'u',
      credential: { kind: 'jwt' as const, id: 'j' },
    };
    const client = connectService('gateway', 'captures', capturesApi, {
      kind: 'local',
      router: createCapturesRouter(),
    }).as(identity);
    expect(await client.stats({})).toEqual({ total: 0, pending: 0, processing: 0, failed: 0 });
  });
});
