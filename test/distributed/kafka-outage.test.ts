import { afterAll, describe, expect, it } from 'vitest';
import { createNode, newTenant } from '../e2e/support/client';
import { control, eventually, identityOf, searchAs } from './support/cluster-api';

describe('broker outage', () => {
  afterAll(() => control('infra', 'kafka', { do: 'start' }));

  it('keeps accepting writes while Kafka is down and delivers their events, once each, after it returns', async () => {
    const s = await newTenant('outage');
    const search = searchAs(identityOf(s.access_token));
    await control('infra', 'kafka', { do: 'stop' });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await createNode(s.bearer, { title: `written during outage ${i}` })).id);
    expect(ids).toHaveLength(10);
    await control('infra', 'kafka', { do: 'start' });
    await eventually(async () => (await search.documents.count({})).count === 10, 90_000, 500);
    for (const id of ids) expect((await search.documents.get({ node_id: id })).title).toMatch(/^written during outage/);
  }, 180_000);
});
