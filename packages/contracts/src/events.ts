import { z } from 'zod';
import { ApiKeyId, CaptureId, NodeId, ParaItemId, TenantId, idSchema } from './ids';
import { NodeStatus } from './nodes';
import { ParaItem, ParaJobEvent } from './para';
import { CaptureStatus, QueueReason } from './captures';
import { Proposal } from './proposals';

/**
 * Event families, one topic each. Messages are keyed by tenant id so that order
 * holds per tenant. Every consumer parses with the family's schema.
 */
export const TOPICS = {
  graphNodes: 'kg.graph.nodes.v1',
  graphLinks: 'kg.graph.links.v1',
  /** Link and PARA proposals recorded for a capture's node (proposal.created), for webhooks. */
  graphProposals: 'kg.graph.proposals.v1',
  paraJobs: 'kg.para.jobs.v1',
  /** Every create, change and archive of a PARA item (para.item.changed), for webhooks. */
  paraItems: 'kg.para.items.v1',
  /** Pipeline runs to execute (capture.queued), for the ingest worker. */
  captures: 'kg.captures.v1',
  /** Every status change of a capture (capture.changed), for live updates. */
  captureChanges: 'kg.captures.changes.v1',
  /** API key revocations (api_key.revoked), for the gateways' verified-key caches. */
  apiKeys: 'kg.auth.api-keys.v1',
  /** Sign-in sessions ended early (session.revoked: sign-out, refresh-token reuse), for the gateways' event streams. */
  sessions: 'kg.auth.sessions.v1',
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
  /** The capture the node was made from (null: made by hand). Absent from events written before it existed. */
  source_capture_id: CaptureId.nullable().optional(),
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

/**
 * Capture events. `version` is the capture's own change counter (every write of the capture
 * takes the next one): a consumer ignores an event whose version is not newer than the one it
 * holds for that capture.
 */
const captureEnvelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: z.string().meta({ description: 'Unique event id (evt_…); consumers de-duplicate on it' }),
    type: z.literal(type),
    tenant_id: TenantId,
    occurred_at: z.iso.datetime(),
    version: z.number().int().positive().meta({ description: "The capture's change counter at this write" }),
    data,
  });

/**
 * `kg.captures.v1`, keyed by tenant: a pipeline run to execute, written in the same transaction
 * as the status change that queued it. The worker claims `run_id` (captures pipeline.claim).
 */
export const CaptureQueuedEvent = captureEnvelope(
  'capture.queued',
  z.object({
    capture_id: CaptureId,
    run_id: idSchema('run'),
    reason: QueueReason,
    fetch_host: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .meta({
        description:
          'The host the pipeline fetches the content from (absent: it fetches nothing); the worker ' +
          'lets only a few runs of one host in at once, the others wait without holding a place',
      }),
  }),
);
export type CaptureQueuedEvent = z.infer<typeof CaptureQueuedEvent>;
export const CaptureEvent = z.discriminatedUnion('type', [CaptureQueuedEvent]);
export type CaptureEvent = z.infer<typeof CaptureEvent>;

/** `kg.captures.changes.v1`, keyed by tenant: a capture's status (or nodes) changed, or it was deleted. */
export const CaptureChangeEvent = z.discriminatedUnion('type', [
  captureEnvelope(
    'capture.changed',
    z.object({
      capture_id: CaptureId,
      status: CaptureStatus,
      previous_status: CaptureStatus.nullable(),
      node_ids: z.array(NodeId),
      error: z.string().nullable(),
    }),
  ),
  captureEnvelope('capture.deleted', z.object({ capture_id: CaptureId })),
]);
export type CaptureChangeEvent = z.infer<typeof CaptureChangeEvent>;

/**
 * The envelope of events whose `version` counts the writes of one record (not the tenant's
 * graph version): `version` says what it counts.
 */
const recordEnvelope = <T extends string, D extends z.ZodType>(type: T, data: D, version: string) =>
  z.object({
    id: z.string().meta({ description: 'Unique event id (evt_…); consumers de-duplicate on it' }),
    type: z.literal(type),
    tenant_id: TenantId,
    occurred_at: z.iso.datetime(),
    version: z.number().int().positive().meta({ description: version }),
    data,
  });

/**
 * `kg.graph.proposals.v1`, keyed by tenant: a proposal was recorded for a capture's node
 * (graph proposals.record), one event per proposal, written in the transaction that records it.
 * `data.proposal` is the Proposal as the API answers it (status `pending`).
 */
export const ProposalEvent = z.discriminatedUnion('type', [
  recordEnvelope(
    'proposal.created',
    z.object({ proposal: Proposal }),
    "The proposal's change counter: 1 at its creation. Recording proposals is no write of the graph, so it takes no graph version; a proposal is created once (a reingest replaces the node's pending proposals by new ones, with new ids, each announced by its own proposal.created).",
  ),
]);
export type ProposalEvent = z.infer<typeof ProposalEvent>;

/** What a para.item.changed reports. */
export const ParaItemChange = z.enum(['created', 'updated', 'archived', 'deleted']).meta({
  description:
    '`created` (POST /para); `archived`: the write archived the item (POST /para/{id}/archive, or PATCH status archived); `updated`: any other write of the item (PATCH, complete, undo-complete, unarchive: `item.status` says where it went); `deleted`: reserved, PARA items are never deleted today (DELETE /para/{id} answers 410), so no event carries it yet',
});
export type ParaItemChange = z.infer<typeof ParaItemChange>;

/**
 * `kg.para.items.v1`, keyed by tenant: a PARA item was created or changed, written in the same
 * transaction as the write. A request that changes nothing (archiving an archived item,
 * completing a completed project) writes no event; every PATCH does (it moves `updated_at`).
 */
export const ParaItemEvent = z.discriminatedUnion('type', [
  recordEnvelope(
    'para.item.changed',
    z.object({
      change: ParaItemChange,
      item_id: ParaItemId,
      item: ParaItem.nullable().meta({
        description: 'The item as the API answers it after the write; null when deleted',
      }),
    }),
    "The item's change counter (1 at its creation; every write of the item takes the next one): a consumer ignores an event whose version is not newer than the one it holds for that item.",
  ),
]);
export type ParaItemEvent = z.infer<typeof ParaItemEvent>;

/**
 * `kg.auth.api-keys.v1`, keyed by tenant: an API key was revoked. Every gateway drops the key
 * from its cache of verified keys at once (otherwise within API_KEY_CACHE_TTL_SECONDS).
 */
export const ApiKeyEvent = z.discriminatedUnion('type', [
  z.object({
    id: z.string().meta({ description: 'Unique event id (evt_…)' }),
    type: z.literal('api_key.revoked'),
    tenant_id: TenantId,
    occurred_at: z.iso.datetime(),
    data: z.object({ api_key_id: ApiKeyId }),
  }),
]);
export type ApiKeyEvent = z.infer<typeof ApiKeyEvent>;

/**
 * `kg.auth.sessions.v1`, keyed by tenant: a sign-in session (a refresh-token family; access tokens
 * carry its id as claim `sid`) was revoked: `signed_out` (POST /auth/logout) or `reuse_detected`
 * (a used refresh token presented again). Every gateway ends the event streams of that session.
 */
export const SessionEvent = z.discriminatedUnion('type', [
  z.object({
    id: z.string().meta({ description: 'Unique event id (evt_…)' }),
    type: z.literal('session.revoked'),
    tenant_id: TenantId,
    occurred_at: z.iso.datetime(),
    data: z.object({
      session_id: idSchema('refreshToken'),
      reason: z.enum(['signed_out', 'reuse_detected']),
    }),
  }),
]);
export type SessionEvent = z.infer<typeof SessionEvent>;

export const EVENT_SCHEMAS = {
  [TOPICS.graphNodes]: NodeEvent,
  [TOPICS.graphLinks]: LinkEvent,
  [TOPICS.graphProposals]: ProposalEvent,
  [TOPICS.paraJobs]: ParaJobEvent,
  [TOPICS.paraItems]: ParaItemEvent,
  [TOPICS.captures]: CaptureEvent,
  [TOPICS.captureChanges]: CaptureChangeEvent,
  [TOPICS.apiKeys]: ApiKeyEvent,
  [TOPICS.sessions]: SessionEvent,
} as const satisfies Record<Topic, z.ZodType>;

export type EventOf<T extends Topic> = z.infer<(typeof EVENT_SCHEMAS)[T]>;
