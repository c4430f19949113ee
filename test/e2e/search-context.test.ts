import { beforeAll, describe, expect, it } from 'vitest';
import { ContextResponse } from '@kg/contracts';
import {
  api,
  conforms,
  createNode,
  expectProblem,
  expectUnauthorized,
  newTenant,
  type Session,
} from './support/client';
import { waitIndexed } from './support/search';

/** POST /context: graph proximity, similarity, validated, recency; reasons; diversified; per tenant. */
let s: Session;
let other: Session;
const ids: Record<string, string> = {};

const context = (body: unknown, auth = s.bearer) => api('POST', '/context', { auth, body });
const idsOf = (body: unknown) => conforms(ContextResponse, body).nodes.map((n) => n.id);

beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('ctx'), newTenant('ctx-other')]);
  const make = async (key: string, title: string, content: string, auth = s.bearer) =>
    (ids[key] = (await createNode(auth, { title, content })).id);
  await make('focus', 'Espresso extraction', 'Grind size, dose and water temperature decide how espresso extracts.');
  await make('linked', 'Kitchen renovation budget', 'Cabinets, counter tops and the plumber quote.');
  await make(
    'similar',
    'Pulling a good coffee shot',
    'Finer grounds slow the shot; hotter water extracts more from the coffee.',
  );
  await make('far', 'Quarterly tax filing', 'Receipts, invoices and the VAT return.');
  await make('dup1', 'Coffee shot notes', 'Coffee shot grind notes, first draft.');
  await make('dup2', 'Coffee shot notes', 'Coffee shot grind notes, second draft.');
  await make(
    'theirs',
    'Espresso extraction',
    'Grind size, dose and water temperature decide how espresso extracts.',
    other.bearer,
  );
  await api('PATCH', `/nodes/${ids['focus']}/links`, {
    auth: s.bearer,
    body: {
      links: [
        { target_id: ids['linked'], type: 'related', weight: 0.9 },
        { target_id: ids['far'], type: 'related', weight: 0.1 },
      ],
    },
  });
  for (const key of ['focus', 'linked', 'similar', 'far', 'dup1', 'dup2'])
    await waitIndexed(
      s.bearer,
      ids[key]!,
      key === 'far' ? 'tax filing' : key === 'linked' ? 'kitchen renovation' : 'coffee espresso',
    );
  await waitIndexed(other.bearer, ids['theirs']!, 'espresso');
}, 120_000);

describe('POST /context', () => {
  it('returns linked and similar nodes with scores and reasons, never the focus itself', async () => {
    const res = await context({ focus_node_ids: [ids['focus']] });
    expect(res.status).toBe(200);
    // The shape the API conventions give: {nodes: [{id, title, summary, score, reasons}]}, best first.
    expect(Object.keys(res.body)).toEqual(['nodes']);
    const body = conforms(ContextResponse, res.body);
    expect(body.nodes.length).toBeGreaterThan(0);
    for (const n of body.nodes)
      expect(n).toMatchObject({
        id: expect.any(String),
        title: expect.any(String),
        summary: expect.any(String),
        score: expect.any(Number),
        reasons: expect.any(Array),
      });
    const order = body.nodes.map((n) => n.id);
    expect(order).not.toContain(ids['focus']);
    expect(order.slice(0, 2)).toEqual(expect.arrayContaining([ids['linked'], ids['similar']]));
    const linked = body.nodes.find((n) => n.id === ids['linked'])!;
    expect(linked.reasons.join(' ')).toMatch(/linked to “Espresso extraction” \(related, weight 0\.9\)/);
    const similar = body.nodes.find((n) => n.id === ids['similar'])!;
    expect(similar.reasons.join(' ')).toMatch(/similar to the focus/);
    for (const n of body.nodes) {
      expect(n.score).toBeGreaterThan(0);
      expect(n.score).toBeLessThanOrEqual(1);
    }
  });

  it('diversifies: a near-duplicate of a node already picked yields its place to a different node', async () => {
    const data = conforms(ContextResponse, (await context({ focus_node_ids: [ids['focus']] })).body).nodes;
    const at = (key: string) => data.findIndex((n) => n.id === ids[key]);
    const [first, second] = [Math.min(at('dup1'), at('dup2')), Math.max(at('dup1'), at('dup2'))];
    expect(first).toBeGreaterThanOrEqual(0);
    // The second duplicate scores above the weakly linked tax node, yet comes after it.
    expect(data[second]!.score).toBeGreaterThan(data[at('far')]!.score);
    expect(at('far')).toBeLessThan(second);
  });

  it('falls back to recency and status without focus, in every mode', async () => {
    for (const body of [{}, { focus_node_ids: [] }, { mode: 'keyword' }, { mode: 'semantic' }]) {
      const data = conforms(ContextResponse, (await context(body)).body).nodes;
      expect(data.length, JSON.stringify(body)).toBe(6);
      expect(
        data.every((n) => n.reasons.some((r) => r.startsWith('updated'))),
        JSON.stringify(body),
      ).toBe(true);
    }
  });

  it("never leaks: another tenant's focus ids are ignored and its nodes never appear", async () => {
    const mine = idsOf((await context({ focus_node_ids: [ids['focus']] })).body);
    expect(mine).not.toContain(ids['theirs']);
    const theirs = idsOf((await context({ focus_node_ids: [ids['focus']] }, other.bearer)).body);
    expect(theirs).toEqual([ids['theirs']]);
  });

  it('answers 400 for a bad body and 401 without credentials', async () => {
    for (const body of [
      { mode: 'fuzzy' },
      { focus_node_ids: 'x' },
      { focus_node_ids: Array.from({ length: 51 }, () => ids['focus']) },
      { extra: 1 },
    ])
      expectProblem(await context(body), 400);
    expectUnauthorized(await api('POST', '/context', { body: {} }));
  });
});
