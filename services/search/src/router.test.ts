import { describe, expect, it } from 'vitest';
import { serviceInfoApi } from '@kg/contracts';
import { connectService } from '@kg/trpc';
import { createSearchRouter } from './router';

describe('search router', () => {
  it('is mounted and answers its info procedure', async () => {
    const client = connectService('test', 'search', serviceInfoApi, { kind: 'local', router: createSearchRouter() }).as(null);
    expect(await client.info({})).toEqual({ service: 'search', version: '0.1.0', features: [] });
  });
});
