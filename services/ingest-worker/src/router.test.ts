import { describe, expect, it } from 'vitest';
import { serviceInfoApi } from '@kg/contracts';
import { connectService } from '@kg/trpc';
import { createIngestWorkerRouter } from './router';

describe('ingest-worker router', () => {
  it('is mounted and answers its info procedure', async () => {
    const client = connectService('gateway', 'ingest-worker', serviceInfoApi, {
      kind: 'local',
      router: createIngestWorkerRouter(),
    }).as(null);
    expect(await client.info({})).toEqual({ service: 'ingest-worker', version: '0.1.0', features: [] });
  });
});
