import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  CreateNodeInput,
  LinkList,
  ListNodesInput,
  Node,
  NodePage,
  NodeStatus,
  RelatedList,
  RelatedQuery,
  ReplaceLinksInput,
  UpdateNodeInput,
} from '../nodes';
import { ById, text } from '../common';
import { CaptureId } from '../ids';
import { GraphHealth, NeighborsQuery, NeighborsView, SeedQuery, SeedView } from '../graph-views';
import {
  ListProposalsQuery,
  Proposal,
  ProposalDecision,
  ProposalList,
  RecordProposalsInput,
  RecordProposalsOutput,
} from '../proposals';

/**
 * An archive/restore command for a PARA item's associations, with the item's
 * `status_version` it follows: graph applies only a version above the last it applied.
 */
const ParaItemRef = z.object({
  para_item_id: text({ max: 64 }),
  status_version: z.number().int().min(0),
});

/** What a reclassification scores against: an item's id and its label and description. */
const ScoringItem = z.object({ id: text({ max: 64 }), text: text({ max: 5300 }) });
export const OrphanPageInput = z.object({
  after: text({ max: 64 }).nullable(),
  limit: z.number().int().min(1).max(1000),
  items: z.array(ScoringItem).min(1).max(500),
});
export const OrphanPage = z.object({
  nodes: z.array(z.object({ id: z.string(), para_item_id: z.string().nullable(), score: z.number() })),
  next: z.string().nullable(),
});
export const AutoAssignInput = z.object({
  assignments: z
    .array(z.object({ node_id: text({ max: 64 }), para_item_id: text({ max: 64 }), score: z.number() }))
    .max(1000),
});

/**
 * The node a capture produced, written by the ingest worker. Idempotent per capture: the node's
 * id is derived from the capture's (`node_` + the capture id's body), so a re-run or a
 * redelivered message replaces that node instead of adding one.
 */
export const UpsertCaptureNodeInput = z.object({
  capture_id: CaptureId,
  title: CreateNodeInput.shape.title,
  content: text({ max: 1_000_000 }),
  summary: text({ max: 10_000 }),
  tags: CreateNodeInput.shape.tags,
});
export const UpsertCaptureNodeOutput = z.object({
  node: Node,
  /** false when the capture's node existed and was replaced. */
  created: z.boolean(),
});

/**
 * Keyword search as ranked candidates: the ids of the tenant's best `limit` nodes for `query`
 * by BM25 (any word matches; docs/API.md "Keyword search"), best first, with their scores
 * (higher is better; comparable within one answer only). A query with no searchable word
 * (stop words, punctuation) answers no hits.
 */
export const KeywordSearchInput = z.object({
  query: text({ max: 500 }),
  limit: z.number().int().min(1).max(1000).default(100),
  filters: z
    .object({
      status: NodeStatus.optional(),
      para_item_id: text({ max: 64 }).optional(),
      orphan: z.boolean().optional(),
      source_capture_id: text({ min: 1, max: 64 }).optional(),
    })
    .default({}),
});
export const KeywordSearchOutput = z.object({
  hits: z.array(z.object({ id: z.string(), score: z.number() })),
});

/** Up to 100 node ids of one tenant. */
export const NodesByIdInput = z.object({ ids: z.array(text({ max: 64 })).max(100) });
export const NodeLinksOutput = z.object({
  links: z.array(z.object({ source_id: z.string(), target_id: z.string(), type: z.string(), weight: z.number() })),
});

/** The graph service's tRPC contract. */
export const graphApi = {
  nodes: {
    create: mutation('tenant', CreateNodeInput, Node, ['gateway']),
    get: query('tenant', ById, Node, ['gateway']),
    update: mutation('tenant', ById.extend({ patch: UpdateNodeInput }), Node, ['gateway']),
    delete: mutation('tenant', ById, z.object({ deleted: z.literal(true) }), ['gateway']),
    list: query('tenant', ListNodesInput, NodePage, ['gateway']),
  },
  links: {
    replace: mutation('tenant', ById.extend({ links: ReplaceLinksInput.shape.links }), LinkList, ['gateway']),
    related: query('tenant', ById.extend(RelatedQuery.shape), RelatedList, ['gateway']),
  },
  views: {
    seed: query('tenant', SeedQuery, SeedView, ['gateway']),
    neighbors: query('tenant', ById.extend(NeighborsQuery.shape), NeighborsView, ['gateway']),
    /** Node and link counts; captures counts come from the captures service. */
    health: query(
      'tenant',
      z.object({}),
      GraphHealth.pick({ total_nodes: true, validated_nodes: true, total_links: true, stale_nodes: true }),
      ['gateway'],
    ),
  },
  /**
   * Node↔PARA associations. The graph service owns them (services/graph/src/domain/assignments.ts
   * says why); the PARA service commands the archive of an item's associations and their restore.
   */
  assignments: {
    archiveItem: mutation('tenant', ParaItemRef, z.object({ archived: z.number().int() }), ['para']),
    restoreItem: mutation('tenant', ParaItemRef, z.object({ restored: z.number().int() }), ['para']),
    /** Automatic assignments of reclassification; a node that holds any link already is left alone. */
    autoAssign: mutation('tenant', AutoAssignInput, z.object({ assigned: z.number().int() }), ['para']),
  },
  /** The ingest worker's write: create or replace the node of a capture (status `raw` when created). */
  captures: {
    upsertNode: mutation('tenant', UpsertCaptureNodeInput, UpsertCaptureNodeOutput, ['ingest-worker']),
  },
  /**
   * Machine-made proposals for a capture's node (links, a PARA item): recorded by the ingest
   * worker, listed, accepted or dismissed by a person (docs/API.md "Proposals").
   */
  proposals: {
    record: mutation('tenant', RecordProposalsInput, RecordProposalsOutput, ['ingest-worker']),
    list: query('tenant', ById.extend(ListProposalsQuery.shape), ProposalList, ['gateway']),
    accept: mutation('tenant', ById.extend({ proposal_id: text({ max: 64 }) }), ProposalDecision, ['gateway']),
    dismiss: mutation('tenant', ById.extend({ proposal_id: text({ max: 64 }) }), Proposal, ['gateway']),
  },
  search: {
    keyword: query('tenant', KeywordSearchInput, KeywordSearchOutput, ['gateway', 'search']),
    /** Nodes by id (the search service's indexing, ranked pages of the gateway); unknown ids are left out. */
    nodes: query('tenant', NodesByIdInput, z.object({ nodes: z.array(Node) }), ['gateway', 'search']),
    /** The links of the nodes (their outgoing rows; every link has a mirror row), for context ranking. */
    links: query('tenant', NodesByIdInput, NodeLinksOutput, ['gateway', 'search']),
  },
  /** Reclassification reads: the tenant's never-assigned nodes, scored by the keyword engine. */
  reclassify: {
    /** A mutation only because its input (item texts) is too large for a GET; it changes nothing. */
    orphans: mutation('tenant', OrphanPageInput, OrphanPage, ['para']),
    count: query('tenant', z.object({}), z.object({ count: z.number().int() }), ['para']),
  },
} as const;
