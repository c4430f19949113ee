import { TOPICS, type LinkEvent, type NodeEvent, type Proposal, type ProposalEvent } from '@kg/contracts';
import { enqueueEvent, newEventId } from '@kg/bus';
import type { DbOrTx } from '@kg/db';
import { outbox } from '../store/schema';
import type { StoredNode } from '../store/nodes';

const snapshot = (n: StoredNode) => ({
  id: n.id,
  title: n.title,
  summary: n.summary,
  tags: n.tags,
  status: n.status,
  para_item_ids: n.paraItemIds,
  source_capture_id: n.sourceCaptureId,
  updated_at: n.updatedAt.toISOString(),
});

/** Node fields a patch can change, by their name in the Node resource (content is body_markdown). */
const PATCHABLE = [
  ['title', (n: StoredNode) => n.title],
  ['summary', (n: StoredNode) => n.summary],
  ['body_markdown', (n: StoredNode) => n.bodyMarkdown],
  ['tags', (n: StoredNode) => n.tags.join('\u0000')],
  ['status', (n: StoredNode) => n.status],
] as const;

/** The `changed` of node.updated: the Node fields whose value differs after the write. */
export const changedFields = (before: StoredNode, after: StoredNode): string[] =>
  PATCHABLE.filter(([, get]) => get(before) !== get(after)).map(([name]) => name);

/**
 * `version` is the tenant's graph version that the write took (recordWrite, under the
 * tenant's write lock): it grows with every write, so each node's events carry
 * increasing versions and consumers can drop a late, older one.
 */
const envelope = (tenantId: string, version: number, now: Date) => ({
  id: newEventId(),
  tenant_id: tenantId,
  occurred_at: now.toISOString(),
  version,
});

/** Writes a node event into the outbox, inside the caller's transaction. */
export function nodeCreated(tx: DbOrTx, node: StoredNode, version: number, now: Date) {
  const event: NodeEvent = {
    ...envelope(node.tenantId, version, now),
    type: 'node.created',
    data: { node: snapshot(node) },
  };
  return enqueueEvent(tx, outbox, TOPICS.graphNodes, event);
}

export function nodeUpdated(tx: DbOrTx, node: StoredNode, changed: string[], version: number, now: Date) {
  const event: NodeEvent = {
    ...envelope(node.tenantId, version, now),
    type: 'node.updated',
    data: { node: snapshot(node), changed },
  };
  return enqueueEvent(tx, outbox, TOPICS.graphNodes, event);
}

export function nodeDeleted(
  tx: DbOrTx,
  tenantId: string,
  nodeId: string,
  unlinked: string[],
  version: number,
  now: Date,
) {
  const event: NodeEvent = {
    ...envelope(tenantId, version, now),
    type: 'node.deleted',
    data: { node_id: nodeId, unlinked_ids: unlinked },
  };
  return enqueueEvent(tx, outbox, TOPICS.graphNodes, event);
}

export function linksChanged(
  tx: DbOrTx,
  tenantId: string,
  nodeId: string,
  added: Array<{ target_id: string; type: string; weight: number }>,
  removed: string[],
  version: number,
  now: Date,
) {
  const event: LinkEvent = {
    ...envelope(tenantId, version, now),
    type: 'links.changed',
    data: { node_id: nodeId, added, removed },
  };
  return enqueueEvent(tx, outbox, TOPICS.graphLinks, event);
}

/**
 * Writes a proposal.created into the outbox, inside the transaction that records the proposal.
 * Recording proposals takes no graph version (it is no write of the graph): `version` is the
 * proposal's own change counter, 1 at its creation (contracts ProposalEvent).
 */
export function proposalCreated(tx: DbOrTx, tenantId: string, proposal: Proposal, now: Date) {
  const event: ProposalEvent = {
    ...envelope(tenantId, 1, now),
    type: 'proposal.created',
    data: { proposal },
  };
  return enqueueEvent(tx, outbox, TOPICS.graphProposals, event);
}
