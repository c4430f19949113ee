import { z } from 'zod';
import { CaptureId, idSchema, NodeId } from './ids';
import { Link, ParaAssignment } from './nodes';
import { ById, text, Timestamp } from './common';
import { ParaCategory } from './graph-views';

/**
 * Proposals (an extension): links and a PARA item the ingest worker proposes for the node a
 * capture produced, recorded as machine-made until a person accepts or dismisses them
 * (docs/API.md "Proposals").
 */
export const ProposalId = idSchema('proposal').meta({ description: 'Proposal identifier, e.g. prop_01jd…' });

export const ProposalKind = z.enum(['link', 'para_item']).meta({ id: 'ProposalKind' });
export const ProposalStatus = z.enum(['pending', 'accepted', 'dismissed']).meta({ id: 'ProposalStatus' });
export type ProposalStatus = z.infer<typeof ProposalStatus>;

export const Proposal = z
  .object({
    id: ProposalId,
    node_id: NodeId,
    capture_id: CaptureId,
    kind: ProposalKind,
    target_id: z.string().meta({ description: 'The node to link to (`link`) or the PARA item (`para_item`)' }),
    target_title: z.string().meta({ description: 'The target’s title (node) or label (PARA item) when proposed' }),
    score: z.number().meta({ description: 'Cosine similarity (`link`) or keyword score in [0, 1) (`para_item`)' }),
    model: z.string().meta({ description: 'The model or method that scored it' }),
    reason: z.string().meta({ description: 'Why it was proposed, readable' }),
    status: ProposalStatus,
    created_at: Timestamp,
    decided_at: Timestamp.nullable(),
  })
  .meta({ id: 'Proposal' });
export type Proposal = z.infer<typeof Proposal>;

export const ProposalList = z.object({ data: z.array(Proposal) }).meta({ id: 'ProposalList' });

export const ListProposalsQuery = z.object({ status: ProposalStatus.optional() }).strict();

export const ProposalParams = ById.extend({ proposal_id: text({ min: 1, max: 64 }) });

/** What accepting a proposal made: the link (both directions) or the PARA assignment. */
export const ProposalDecision = z
  .object({
    proposal: Proposal,
    link: Link.nullable().meta({ description: 'The node’s link to the target (`link` proposals)' }),
    para_assignment: ParaAssignment.nullable().meta({ description: 'The node’s assignment (`para_item` proposals)' }),
    created: z.boolean().meta({
      description: 'false when the node already held that link or assignment (it is left as it was)',
    }),
  })
  .meta({ id: 'ProposalDecision' });
export type ProposalDecision = z.infer<typeof ProposalDecision>;

/** What the ingest worker hands graph after writing a capture's node (graph.proposals.record). */
export const RecordProposalsInput = z.object({
  capture_id: CaptureId,
  /** Link candidates from the search service, most similar first (cosine, already above its floor). */
  links: z.array(z.object({ id: z.string().max(64), score: z.number() })).max(50),
  /** The embedding model that scored them. */
  link_model: z.string().max(200),
  /**
   * The PARA item the capture asks for (a bookmark import's innermost folder, when the import
   * asked for PARA items): found or made, and the node assigned to it instead of a PARA proposal.
   */
  para_item: z
    .object({ category: ParaCategory, label: text({ max: 200, trim: true }) })
    .nullable()
    .optional(),
});
export const RecordProposalsOutput = z.object({
  proposals: z.array(Proposal),
  /** The item `para_item` named, when given: whether this call made it and assigned the node to it. */
  para_item: z
    .object({ id: z.string(), label: z.string(), created: z.boolean(), assigned: z.boolean() })
    .nullable()
    .optional(),
});
