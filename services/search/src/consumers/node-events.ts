import { TOPICS, type NodeEvent } from '@kg/contracts';
import { handleOnce, type Subscription } from '@kg/bus';
import type { Db } from '@kg/db';
import { deleteDocument, upsertDocument } from '../store/documents';
import { processedEvents } from '../store/schema';

export const NODE_EVENTS_GROUP = 'search.node-events';

/** Applies one node event to the projection; idempotent through the processed-event ledger. */
export async function applyNodeEvent(db: Db, event: NodeEvent): Promise<boolean> {
  return handleOnce(db, processedEvents, NODE_EVENTS_GROUP, event.id, async (tx) => {
    if (event.type === 'node.deleted') {
      await deleteDocument(tx, event.tenant_id, event.data.node_id);
      return;
    }
    const node = event.data.node;
    await upsertDocument(tx, event.tenant_id, {
      nodeId: node.id,
      title: node.title,
      summary: node.summary,
      tags: node.tags,
      status: node.status,
      updatedAt: new Date(node.updated_at),
    });
  });
}

/** Consumer of graph node events. Concurrency 1 per partition; 5 attempts, then the dead-letter topic. */
export const nodeEventsSubscription = (db: Db): Subscription<typeof TOPICS.graphNodes> => ({
  topic: TOPICS.graphNodes,
  group: NODE_EVENTS_GROUP,
  maxAttempts: 5,
  handler: async (event) => {
    await applyNodeEvent(db, event);
  },
});
