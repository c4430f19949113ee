import {
  TOPICS,
  fetchHostOf,
  isId,
  notFound,
  type CaptureChangeEvent,
  type CaptureQueuedEvent,
  type QueueReason,
} from '@kg/contracts';
import { enqueueEvent, enqueuedIn, newEventId } from '@kg/bus';
import { newId, type Tx } from '@kg/db';
import { findCapture, updateCapture, type CaptureRow, type CapturePatch } from '../store/captures';
import { insertActivity, insertRun, supersedeRuns } from '../store/pipeline';
import { outbox } from '../store/schema';
import type { CapturesContext } from './context';

export type ActivityKind =
  | 'created'
  | 'queued'
  | 'processing_started'
  | 'stage_completed'
  | 'stage_failed'
  | 'processed'
  | 'failed'
  | 'retried'
  | 'reingested'
  | 'requeued'
  | 'archived'
  | 'unarchived'
  | 'dismissed';

/**
 * Runs one write of a capture in a transaction, then wakes the relay when it enqueued an event
 * (most writes of a run, a stage's record for one, announce nothing).
 */
export async function captureWrite<T>(ctx: CapturesContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let announced = false;
  const result = await ctx.db.transaction(async (tx) => {
    const value = await fn(tx);
    announced = enqueuedIn(tx);
    return value;
  });
  if (announced) ctx.afterCommit();
  return result;
}

/** The tenant's capture, locked for update; malformed, unknown and other tenants' ids are all 404. */
export async function lockedCapture(tx: Tx, tenantId: string, id: string): Promise<CaptureRow> {
  const row = isId('capture', id) ? await findCapture(tx, tenantId, id, true) : null;
  if (!row) throw notFound('Capture');
  return row;
}

export async function recordActivity(
  tx: Tx,
  ctx: CapturesContext,
  row: CaptureRow,
  kind: ActivityKind,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await insertActivity(tx, {
    id: newId('activity'),
    tenantId: row.tenantId,
    captureId: row.id,
    kind,
    at: ctx.now(),
    detail,
  });
}

/** Writes the change; when the status or the nodes moved, announces it (capture.changed). */
export async function change(tx: Tx, ctx: CapturesContext, row: CaptureRow, patch: CapturePatch): Promise<CaptureRow> {
  const updated = await updateCapture(tx, row, patch, ctx.now());
  if (updated.status !== row.status || JSON.stringify(updated.nodeIds) !== JSON.stringify(row.nodeIds))
    await announce(tx, ctx, updated, row.status);
  return updated;
}

export async function announce(
  tx: Tx,
  ctx: CapturesContext,
  row: CaptureRow,
  previous: CaptureRow['status'] | null,
): Promise<void> {
  const event: CaptureChangeEvent = {
    id: newEventId(),
    type: 'capture.changed',
    tenant_id: row.tenantId,
    occurred_at: ctx.now().toISOString(),
    version: row.version,
    data: {
      capture_id: row.id,
      status: row.status,
      previous_status: previous,
      node_ids: row.nodeIds,
      error: row.error,
    },
  };
  await enqueueEvent(tx, outbox, TOPICS.captureChanges, event);
}

export async function announceDeleted(tx: Tx, ctx: CapturesContext, row: CaptureRow): Promise<void> {
  const event: CaptureChangeEvent = {
    id: newEventId(),
    type: 'capture.deleted',
    tenant_id: row.tenantId,
    occurred_at: ctx.now().toISOString(),
    version: row.version + 1,
    data: { capture_id: row.id },
  };
  await enqueueEvent(tx, outbox, TOPICS.captureChanges, event);
}

/** Announces a queued run to the ingest worker (capture.queued) and records `queued`. */
export async function announceRun(
  tx: Tx,
  ctx: CapturesContext,
  row: CaptureRow,
  runId: string,
  reason: QueueReason,
): Promise<void> {
  const event: CaptureQueuedEvent = {
    id: newEventId(),
    type: 'capture.queued',
    tenant_id: row.tenantId,
    occurred_at: ctx.now().toISOString(),
    version: row.version,
    data: { capture_id: row.id, run_id: runId, reason },
  };
  const host = fetchHostOf({
    url: row.url,
    content_type: row.contentType,
    has_content: row.rawContent !== null || row.blobKey !== null,
  });
  if (host) event.data.fetch_host = host;
  await enqueueEvent(tx, outbox, TOPICS.captures, event);
  await recordActivity(tx, ctx, row, 'queued', { run_id: runId, reason });
}

/**
 * Starts a new run (create, retry, reingest, unarchive of an unfinished capture): earlier
 * unfinished runs are superseded, the capture becomes `pending` and the run is announced.
 */
export async function queueNewRun(
  tx: Tx,
  ctx: CapturesContext,
  row: CaptureRow,
  reason: QueueReason,
  patch: CapturePatch = {},
): Promise<CaptureRow> {
  await supersedeRuns(tx, row.id, ctx.now());
  const run = await insertRun(tx, { id: newId('run'), tenantId: row.tenantId, captureId: row.id, reason });
  const updated = await change(tx, ctx, row, {
    ...patch,
    status: 'pending',
    currentRunId: run.id,
    queuedAt: ctx.now(),
    leaseUntil: null,
    error: null,
  });
  await announceRun(tx, ctx, updated, run.id, reason);
  return updated;
}
