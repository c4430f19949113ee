import {
  isId,
  notFound,
  type Capture,
  type CaptureProvenance,
  type CapturedUrl,
  type CaptureStatus,
} from '@kg/contracts';
import { iso, isoOrNull } from '@kg/db';
import { countByStatus, findCapture, latestByUrl, listCaptures, type CaptureRow } from '../store/captures';
import { activityOf, runsOf, stagesOf } from '../store/pipeline';
import type { CapturesContext } from './context';
import { toCapture } from './records';

async function found(ctx: CapturesContext, tenantId: string, id: string): Promise<CaptureRow> {
  const row = isId('capture', id) ? await findCapture(ctx.db, tenantId, id) : null;
  if (!row) throw notFound('Capture');
  return row;
}

export const getCapture = async (ctx: CapturesContext, tenantId: string, id: string): Promise<Capture> =>
  toCapture(await found(ctx, tenantId, id));

export async function pageOfCaptures(
  ctx: CapturesContext,
  tenantId: string,
  q: { page: number; per_page: number; status?: CaptureStatus | undefined },
) {
  const { rows, total } = await listCaptures(ctx.db, tenantId, {
    ...(q.status ? { status: q.status } : {}),
    limit: q.per_page,
    offset: (q.page - 1) * q.per_page,
  });
  return { data: rows.map(toCapture), total, page: q.page, per_page: q.per_page };
}

/** GET /captures/check: the latest capture of exactly this URL, else 404. */
export async function checkUrl(ctx: CapturesContext, tenantId: string, url: string): Promise<CapturedUrl> {
  const row = await latestByUrl(ctx.db, tenantId, url);
  if (!row) throw notFound('Capture of this URL');
  return { url, capture_id: row.id, status: row.status, captured_at: iso(row.createdAt) };
}

/**
 * The content to answer GET /captures/:id/content with: the processed markdown, or the
 * original (the uploaded file with its detected type, else raw_content as UTF-8 text).
 */
export async function captureContent(
  ctx: CapturesContext,
  tenantId: string,
  id: string,
  format: 'markdown' | undefined,
): Promise<{ content_type: string; bytes_base64: string }> {
  const row = await found(ctx, tenantId, id);
  if (format === 'markdown') {
    if (row.markdown === null) throw notFound('Processed content (the capture is not processed yet)');
    return { content_type: 'text/markdown; charset=utf-8', bytes_base64: Buffer.from(row.markdown).toString('base64') };
  }
  const original = await originalContent(ctx, row);
  if (original.bytes) return { content_type: original.mimeType!, bytes_base64: original.bytes.toString('base64') };
  if (original.text !== null)
    return { content_type: 'text/plain; charset=utf-8', bytes_base64: Buffer.from(original.text).toString('base64') };
  throw notFound('Original content (this capture carries only its URL)');
}

/** The original: the uploaded bytes and/or raw_content. */
export async function originalContent(ctx: CapturesContext, row: CaptureRow) {
  const bytes = row.blobKey ? await ctx.blobs.get(row.blobKey) : null;
  if (row.blobKey && !bytes) ctx.logger.error({ captureId: row.id }, 'capture blob missing');
  return { bytes, mimeType: row.mimeType, filename: row.filename, text: row.rawContent };
}

export async function pipelineContent(ctx: CapturesContext, tenantId: string, id: string) {
  const row = await found(ctx, tenantId, id);
  const original = await originalContent(ctx, row);
  return {
    content_type: original.bytes ? original.mimeType : original.text !== null ? 'text/plain; charset=utf-8' : null,
    filename: original.filename,
    bytes_base64: original.bytes ? original.bytes.toString('base64') : null,
    raw_text: original.text,
  };
}

export async function activityTimeline(ctx: CapturesContext, tenantId: string, id: string) {
  const row = await found(ctx, tenantId, id);
  const rows = await activityOf(ctx.db, tenantId, row.id);
  return { data: rows.map((a) => ({ id: a.id, kind: a.kind as never, at: iso(a.at), detail: a.detail })) };
}

export async function provenance(ctx: CapturesContext, tenantId: string, id: string): Promise<CaptureProvenance> {
  const row = await found(ctx, tenantId, id);
  const [runs, stages] = await Promise.all([runsOf(ctx.db, tenantId, row.id), stagesOf(ctx.db, tenantId, row.id)]);
  return {
    capture_id: row.id,
    runs: runs.map((r) => ({
      run_id: r.id,
      reason: r.reason,
      started_at: isoOrNull(r.startedAt),
      finished_at: isoOrNull(r.finishedAt),
      status: r.status,
      error: r.error,
      stages: stages
        .filter((s) => s.runId === r.id)
        .map((s) => ({
          name: s.name,
          started_at: iso(s.startedAt),
          finished_at: iso(s.finishedAt),
          model: s.model,
          input_digest: s.inputDigest,
          output: s.output,
        })),
    })),
  };
}

export async function captureStats(ctx: CapturesContext, tenantId: string) {
  const by = await countByStatus(ctx.db, tenantId);
  const total = Object.values(by).reduce((a, b) => a + b, 0);
  return { total, pending: by['pending'] ?? 0, processing: by['processing'] ?? 0, failed: by['failed'] ?? 0 };
}
