import { describe, expect, it } from 'vitest';
import { api, createNode, newTenant } from '../e2e/support/client';
import { eventually, identityOf, searchAs } from './support/cluster-api';

describe('events across processes (Kafka)', () => {
  it('a node written through the gateway reaches the search service’s consumer, updates included', async () => {
    const s = await newTenant('events');
    const search = searchAs(identityOf(s.access_token));
    const node = await createNode(s.bearer, { title: 'Travels through Kafka' });
    const doc = await eventually(() => search.documents.get({ node_id: node.id }).catch(() => undefined), 30_000);
    expect(doc).toMatchObject({ node_id: node.id, title: 'Travels through Kafka', status: 'raw' });
    await api('PATCH', `/nodes/${node.id}`, { auth: s.bearer, body: { title: 'Renamed', status: 'validated' } });
    await eventually(async () => (await search.documents.get({ node_id: node.id })).title === 'Renamed', 30_000);
    await api('DELETE', `/nodes/${node.id}`, { auth: s.bearer });
    await eventually(async () => (await search.documents.count({})).count === 0, 30_000);
  });
});
