import type { Identity, Node, UpsertCaptureNodeInput } from '@kg/contracts';
import type { z } from 'zod';
import { findNode, insertNode, updateNode } from '../store/nodes';
import { recordWrite } from '../store/stats';
import type { GraphContext } from './context';
import { changedFields, nodeCreated, nodeUpdated } from './events';
import { nodeChange } from './change';
import { getNode } from './nodes';
import { tenantWrite } from './write';

/** The node id of a capture: `node_` + the capture id's body (both are TypeIDs of one UUIDv7). */
export const captureNodeId = (captureId: string): string => `node_${captureId.slice(captureId.indexOf('_') + 1)}`;

/**
 * Creates the capture's node (status `raw`) or, when it exists, replaces its title, content,
 * summary and tags, leaving what a person decided (status, PARA assignments, links) alone.
 * The id comes from the capture, so a re-run or a redelivered message can never add a second
 * node: under the tenant's write lock the node either exists or not. Events as for any write.
 */
export async function upsertCaptureNode(
  ctx: GraphContext,
  identity: Identity,
  input: z.infer<typeof UpsertCaptureNodeInput>,
): Promise<{ node: Node; created: boolean }> {
  const tenantId = identity.tenantId;
  const id = captureNodeId(input.capture_id);
  const fields = { title: input.title, summary: input.summary, bodyMarkdown: input.content, tags: input.tags };
  const created = await tenantWrite(ctx, tenantId, async (tx) => {
    const before = await findNode(tx, tenantId, id, true);
    if (!before) {
      const node = await insertNode(tx, {
        id,
        tenantId,
        paraItemIds: [],
        sourceCaptureId: input.capture_id,
        ...fields,
      });
      const version = await recordWrite(tx, tenantId, { nodes: 1 }, nodeChange(node));
      await nodeCreated(tx, node, version, ctx.now());
      return true;
    }
    // sourceCaptureId is written again: a node made before the column existed gains it on reingest.
    const updated = (await updateNode(tx, tenantId, id, { ...fields, sourceCaptureId: input.capture_id }, ctx.now()))!;
    const version = await recordWrite(tx, tenantId, {}, nodeChange(updated));
    await nodeUpdated(tx, updated, changedFields(before, updated), version, ctx.now());
    return false;
  });
  return { node: await getNode(ctx, tenantId, id), created };
}
