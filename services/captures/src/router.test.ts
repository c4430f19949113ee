import { describe, expect, it } from 'vitest';
import { serviceInfoApi } from '@kg/contracts';
import { connectService } from '@kg/trpc';
import { createCapturesRouter } from './router';

describe('captures router', () => {
  it('is mounted and answers its info procedure', async () => {
    const client = connectService('test', 'captures', serviceInfoApi, { kind: 'local', router: createCapturesRouter() }).as(null);
    expect(await client.info({})).toEqual({ service: 'captures', version: '0.1.0', features: [] });
  });
});
