import { z } from 'zod';
import { NodeId, TenantId } from './ids';
import { NodeStatus } from './nodes';
import { ParaJobEvent } from './para';

/**
 * Event families, one topic each. Messages are keyed by tenant id so that order
 * holds per tenant. Every consumer parses with the family's schema.
 */
export const TOPICS = {
  graphNodes: 'kg.graph.nodes.v1',
  graphLinks: 'kg.graph.links.v1',
  paraJobs: 'kg.para.jobs.v1',
} as const;
export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: z.string().meta({ description: 'Unique event id (evt_…); consumers de-duplicate on it' }),
    type: z.literal(type),
    tenant_id: TenantId,
    occurred_at: z.iso.datetime(),
    version: z.number().int().positive().meta({
      description:
        "The tenant's graph version at this write (its change-log position). Every write takes the next one, so the events of one node carry increasing versions: a consumer ignores an event whose version is not newer than the one it holds (events may arrive out of order).",
    }),
    data,
  });

const NodeSnapshot = z.object({
  id: NodeId,
  title: z.string(),
  summary: z.string(),
  tags: z.array(z.string()),
  status: NodeStatus,
  para_item_ids: z.array(z.string()),
  updated_at: z.iso.datetime(),
});

export const NodeEvent = z.discriminatedUnion('type', [
  envelope('node.created', z.object({ node: NodeSnapshot })),
  envelope('node.updated', z.object({ node: NodeSnapshot, changed: z.array(z.string()) })),
  envelope('node.deleted', z.object({ node_id: NodeId, unlinked_ids: z.array(NodeId) })),
]);
export type NodeEvent = z.infer<typeof NodeEvent>;

export const LinkEvent = z.discriminatedUnion('type', [
  envelope(
    'links.changed',
    z.object({
      node_id: NodeId,
      added: z.array(z.object({ target_id: NodeId, type: z.string(), weight: z.number() })),
      removed: z.array(NodeId),
    }),
  ),
]);
export type LinkEvent = z.infer<typeof LinkEvent>;

export const EVENT_SCHEMAS = {
  [TOPICS.graphNodes]: NodeEvent,
  [TOPICS.graphLinks]: LinkEvent,
  [TOPICS.paraJobs]: ParaJobEvent,
} as const satisfies Record<Topic, z.ZodType>;

export type EventOf<T extends Topic> = z.infer<(typeof EVENT_SCHEMAS)[T]>;
