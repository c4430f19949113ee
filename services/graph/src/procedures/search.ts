import type { graphApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';
import type { GraphContext } from '../domain/context';
import { keywordHits } from '../domain/keyword';
import { toNode } from '../domain/nodes';
import { assignmentsOf } from '../store/assignments';
import { linksOfMany } from '../store/links';
import { findNodes } from '../store/nodes';

type H = Handlers<typeof graphApi>['search'];

export const keyword =
  (ctx: GraphContext): H['keyword'] =>
  ({ input, ctx: call }) =>
    keywordHits(ctx, call.identity.tenantId, input);

/** graph.search.nodes: the tenant's nodes of `ids` (unknown ids left out), in the order asked. */
export const nodes =
  (ctx: GraphContext): H['nodes'] =>
  async ({ input, ctx: call }) => {
    const tenantId = call.identity.tenantId;
    const rows = new Map((await findNodes(ctx.db, tenantId, input.ids)).map((n) => [n.id, n]));
    const assignments = await assignmentsOf(ctx.db, tenantId, [...rows.keys()]);
    return {
      nodes: input.ids.flatMap((id) => (rows.has(id) ? [toNode(rows.get(id)!, assignments.get(id) ?? [])] : [])),
    };
  };

/** graph.search.links: the links of the tenant's nodes of `ids`. */
export const links =
  (ctx: GraphContext): H['links'] =>
  async ({ input, ctx: call }) => ({
    links: (await linksOfMany(ctx.db, call.identity.tenantId, input.ids)).map((l) => ({
      source_id: l.sourceId,
      target_id: l.targetId,
      type: l.type,
      weight: l.weight,
    })),
  });
