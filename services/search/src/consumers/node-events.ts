import { TOPICS, type NodeEvent } from '@kg/contracts';
import { handleOnce, type Subscription } from '@kg/bus';
import type { Db } from '@kg/db';
import { tombstoneDocument, upsertDocument } from '../store/documents';
import { processedEvents } from '../store/schema';

export const NODE_EVENTS_GROUP = 'search.node-events';

/**
 * Applies one node event to the projection; idempotent through the processed-event
 * ledger, and order-proof through versions: an event whose version is not newer than
 * the stored document (or tombstone) changes nothing, so a late node.updated cannot
 * undo a newer update or resurrect a deleted node. Returns false for a redelivery.
 */
export async function applyNodeEvent(db: Db, event: NodeEvent): Promise<boolean> {
  return handleOnce(db, processedEvents, NODE_EVENTS_GROUP, event.id, async (tx) => {
    if (event.type === 'node.deleted') {
      await tombstoneDocument(tx, event.tenant_id, event.data.node_id, event.version, new Date());
      return;
    }
    const node = event.data.node;
    await upsertDocument(tx, event.tenant_id, {
      nodeId: node.id,
      title: node.title,
      summary: node.summary,
      tags: node.tags,
      status: node.status,
      paraItemIds: node.para_item_ids,
      updatedAt: new Date(node.updated_at),
      version: event.version,
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
