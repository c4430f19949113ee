import { conflict, type CreateCaptureInput, type Capture } from '@kg/contracts';
import { newId, type Tx } from '@kg/db';
import { deleteCapture, insertCapture, type CaptureRow } from '../store/captures';
import { supersedeRuns } from '../store/pipeline';
import { announce, announceDeleted, captureWrite, change, lockedCapture, queueNewRun, recordActivity } from './changes';
import type { CapturesContext } from './context';
import { toCapture } from './records';

export interface UploadedFile {
  blobKey: string;
  mimeType: string;
  filename: string;
  sizeBytes: number;
}

/** A new capture: `pending`, activity `created` then `queued`, capture.queued in the same transaction. */
export function createCapture(
  ctx: CapturesContext,
  tenantId: string,
  input: CreateCaptureInput,
  opts: { id?: string; file?: UploadedFile } = {},
): Promise<Capture> {
  return captureWrite(ctx, async (tx) => toCapture(await insertNewCapture(tx, ctx, tenantId, input, opts)));
}

/**
 * The writes of a new capture inside the caller's transaction (createCapture, and each
 * capture of an import's batch): the row, activity `created`, capture.changed, then its
 * first run (activity `queued`, capture.queued). The caller wakes the relay after commit.
 */
export async function insertNewCapture(
  tx: Tx,
  ctx: CapturesContext,
  tenantId: string,
  input: CreateCaptureInput,
  opts: { id?: string; file?: UploadedFile; metadata?: Record<string, unknown>; importId?: string } = {},
): Promise<CaptureRow> {
  const row = await insertCapture(tx, {
    id: opts.id ?? newId('capture'),
    tenantId,
    title: input.title,
    url: input.url ?? null,
    contentType: input.content_type,
    why: input.why ?? null,
    selectedText: input.selected_text ?? null,
    rawContent: input.raw_content ?? null,
    source: input.source,
    metadata: opts.file
      ? { filename: opts.file.filename, mime_type: opts.file.mimeType, size_bytes: opts.file.sizeBytes }
      : (opts.metadata ?? {}),
    ...(opts.file
      ? {
          blobKey: opts.file.blobKey,
          mimeType: opts.file.mimeType,
          filename: opts.file.filename,
          sizeBytes: opts.file.sizeBytes,
        }
      : {}),
    ...(opts.importId ? { importId: opts.importId } : {}),
    createdAt: ctx.now(),
    updatedAt: ctx.now(),
  });
  await recordActivity(tx, ctx, row, 'created', { source: row.source, content_type: row.contentType });
  await announce(tx, ctx, row, null);
  return queueNewRun(tx, ctx, row, 'created');
}

const write = (
  ctx: CapturesContext,
  tenantId: string,
  id: string,
  fn: (tx: Tx, row: CaptureRow) => Promise<CaptureRow>,
) => captureWrite(ctx, async (tx) => toCapture(await fn(tx, await lockedCapture(tx, tenantId, id))));

/** Retry: a failed capture only (409 otherwise); a new run from the first stage. */
export function retryCapture(ctx: CapturesContext, tenantId: string, id: string): Promise<Capture> {
  return write(ctx, tenantId, id, async (tx, row) => {
    if (row.status !== 'failed') throw conflict(`Only a failed capture can be retried; this one is ${row.status}`);
    await recordActivity(tx, ctx, row, 'retried', { previous_error: row.error });
    return queueNewRun(tx, ctx, row, 'retry');
  });
}

/** Reingest: every stage again (the worker replaces the nodes of earlier runs); 409 while processing. */
export function reingestCapture(ctx: CapturesContext, tenantId: string, id: string): Promise<Capture> {
  return write(ctx, tenantId, id, async (tx, row) => {
    if (row.status === 'processing')
      throw conflict('The capture is being processed; reingest it once it is processed or failed');
    await recordActivity(tx, ctx, row, 'reingested', { previous_status: row.status });
    return queueNewRun(tx, ctx, row, 'reingest', { restoreStatus: null, markdown: null });
  });
}

/**
 * Archive and dismiss keep the data and remember the status to return to. A pending or
 * processing capture's run is cancelled (it returns as `pending`, with a new run).
 */
function shelve(ctx: CapturesContext, tenantId: string, id: string, to: 'archived' | 'dismissed') {
  return write(ctx, tenantId, id, async (tx, row) => {
    if (row.status === to) return row;
    const unfinished = row.status === 'pending' || row.status === 'processing';
    if (unfinished) await supersedeRuns(tx, row.id, ctx.now());
    const restore =
      row.status === 'archived' || row.status === 'dismissed' ? row.restoreStatus : unfinished ? 'pending' : row.status;
    const updated = await change(tx, ctx, row, { status: to, restoreStatus: restore, leaseUntil: null });
    await recordActivity(tx, ctx, updated, to, { previous_status: row.status });
    return updated;
  });
}

export const archiveCapture = (ctx: CapturesContext, tenantId: string, id: string) =>
  shelve(ctx, tenantId, id, 'archived');
export const dismissCapture = (ctx: CapturesContext, tenantId: string, id: string) =>
  shelve(ctx, tenantId, id, 'dismissed');

/** Back to the status before archive or dismiss (a no-op otherwise); an unfinished one is queued again. */
export function unarchiveCapture(ctx: CapturesContext, tenantId: string, id: string): Promise<Capture> {
  return write(ctx, tenantId, id, async (tx, row) => {
    if (row.status !== 'archived' && row.status !== 'dismissed') return row;
    const to = row.restoreStatus ?? 'pending';
    await recordActivity(tx, ctx, row, 'unarchived', { from: row.status, status: to });
    if (to === 'pending' || to === 'processing') return queueNewRun(tx, ctx, row, 'retry', { restoreStatus: null });
    return change(tx, ctx, row, { status: to, restoreStatus: null });
  });
}

/** Deletes the capture with its runs, stages and activity, then its blob. The nodes it made stay. */
export async function removeCapture(ctx: CapturesContext, tenantId: string, id: string): Promise<void> {
  const blobKey = await captureWrite(ctx, async (tx) => {
    const row = await lockedCapture(tx, tenantId, id);
    await deleteCapture(tx, tenantId, row.id);
    await announceDeleted(tx, ctx, row);
    return row.blobKey;
  });
  // After the commit: a failed removal leaves an unreferenced object (logged), never a capture without its file.
  if (blobKey)
    await ctx.blobs
      .delete(blobKey)
      .catch((err: unknown) => ctx.logger.warn({ err, blobKey }, 'capture blob not removed'));
}
