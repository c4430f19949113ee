import { ById, ListProposalsQuery, Proposal, ProposalDecision, ProposalList, ProposalParams } from '@kg/contracts';
import { defineRoute, ok, type Route } from './route';

const base = { tag: 'Proposals', auth: 'required', service: 'graph' } as const;

/** Proposals (an extension, docs/API.md "Proposals"): machine-made links and PARA items for a capture's node. */
export const proposalRoutes: Route[] = [
  defineRoute({
    ...base,
    method: 'get',
    path: '/nodes/:id/proposals',
    operationId: 'listNodeProposals',
    summary: 'Links and a PARA item proposed for a node made from a capture, oldest first',
    params: ById,
    query: ListProposalsQuery,
    success: { status: 200, description: 'The node’s proposals', schema: ProposalList },
    errors: [404],
    async handle(req, peers) {
      return ok(await peers.graph.as(req.identity).proposals.list({ id: req.params.id, ...req.query }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/nodes/:id/proposals/:proposal_id/accept',
    operationId: 'acceptNodeProposal',
    summary: 'Accept a proposal: link the node (type related, weight the score) or assign its PARA item',
    params: ProposalParams,
    success: { status: 200, description: 'The decided proposal and what it made', schema: ProposalDecision },
    errors: [404, 409],
    async handle(req, peers) {
      const { id, proposal_id } = req.params;
      return ok(await peers.graph.as(req.identity).proposals.accept({ id, proposal_id }));
    },
  }),
  defineRoute({
    ...base,
    method: 'post',
    path: '/nodes/:id/proposals/:proposal_id/dismiss',
    operationId: 'dismissNodeProposal',
    summary: 'Dismiss a proposal (nothing else changes)',
    params: ProposalParams,
    success: { status: 200, description: 'The dismissed proposal', schema: Proposal },
    errors: [404, 409],
    async handle(req, peers) {
      const { id, proposal_id } = req.params;
      return ok(await peers.graph.as(req.identity).proposals.dismiss({ id, proposal_id }));
    },
  }),
];
