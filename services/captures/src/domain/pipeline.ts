import {
  conflict,
  isId,
  notFound,
  type Capture,
  type PipelineClaim,
  type ProvenanceStage,
  type QueueReason,
} from '@kg/contracts';
import { iso, type Tx } from '@kg/db';
import { findCapture, markQueued, waitingTooLong, type CaptureRow } from '../store/captures';
import { findRun, insertStage, stagesOfRun, updateRun, type RunRow } from '../store/pipeline';
import { announceRun, captureWrite, change, lockedCapture, recordActivity } from './changes';
import type { CapturesContext } from './context';
import { toCapture } from './records';

const leaseLive = (row: CaptureRow, now: Date) => row.leaseUntil !== null && row.leaseUntil > now;

/** pipeline.claim: see the contract (packages/contracts/src/api/captures.ts). */
export function claimRun(
  ctx: CapturesContext,
  tenantId: string,
  input: { capture_id: string; run_id: string; lease_ms?: number | undefined },
): Promise<PipelineClaim> {
  return captureWrite(ctx, async (tx) => {
    const now = ctx.now();
    const row = isId('capture', input.capture_id) ? await findCapture(tx, tenantId, input.capture_id, true) : null;
    if (!row) return { claimed: false, reason: 'not_found', lease_until: null };
    if (
      row.status === 'processed' ||
      row.status === 'dismissed' ||
      row.status === 'archived' ||
      row.status === 'failed'
    )
      return { claimed: false, reason: row.status, lease_until: null };
    if (row.currentRunId !== input.run_id) return { claimed: false, reason: 'superseded', lease_until: null };
    if (row.status === 'processing' && leaseLive(row, now))
      return { claimed: false, reason: 'leased', lease_until: iso(row.leaseUntil!) };
    const run = (await findRun(tx, row.id, input.run_id))!;
    const leaseUntil = new Date(now.getTime() + (input.lease_ms ?? ctx.leaseMs));
    const attempt = run.attempts + 1;
    await updateRun(tx, run.id, { status: 'processing', attempts: attempt, startedAt: run.startedAt ?? now });
    const updated = await change(tx, ctx, row, { status: 'processing', leaseUntil, error: null });
    await recordActivity(tx, ctx, updated, 'processing_started', { run_id: run.id, attempt });
    const done = await stagesOfRun(tx, run.id);
    return {
      claimed: true,
      capture: toCapture(updated),
      lease_until: iso(leaseUntil),
      attempt,
      completed_stages: done.map((s) => ({ name: s.name, output: s.output })),
    };
  });
}

/** The capture and its current run, for a worker that claimed `run_id`; CONFLICT when it no longer holds it. */
async function heldRun(tx: Tx, tenantId: string, captureId: string, runId: string): Promise<[CaptureRow, RunRow]> {
  const row = await lockedCapture(tx, tenantId, captureId);
  if (row.currentRunId !== runId) throw conflict('This run is no longer the current run of the capture');
  if (row.status !== 'processing') throw conflict(`The capture is ${row.status}, not processing this run`);
  const run = await findRun(tx, row.id, runId);
  if (!run) throw notFound('Run');
  return [row, run];
}

/** pipeline.recordStage: provenance + activity, once per run and stage; renews the lease. */
export function recordStage(
  ctx: CapturesContext,
  tenantId: string,
  input: { capture_id: string; run_id: string; stage: ProvenanceStage },
  leaseMs?: number,
): Promise<{ recorded: boolean }> {
  return captureWrite(ctx, async (tx) => {
    const [row, run] = await heldRun(tx, tenantId, input.capture_id, input.run_id);
    const s = input.stage;
    const recorded = await insertStage(tx, {
      tenantId,
      captureId: row.id,
      runId: run.id,
      name: s.name,
      startedAt: new Date(s.started_at),
      finishedAt: new Date(s.finished_at),
      model: s.model,
      inputDigest: s.input_digest,
      output: s.output,
    });
    if (!recorded) return { recorded };
    const markdown = typeof s.output['markdown'] === 'string' ? { markdown: s.output['markdown'] } : {};
    const updated = await change(tx, ctx, row, {
      ...markdown,
      leaseUntil: new Date(ctx.now().getTime() + (leaseMs ?? ctx.leaseMs)),
    });
    // A stage that proposes (stage 5) says how many proposals it made.
    const proposals = Array.isArray(s.output['proposals']) ? { proposals: s.output['proposals'].length } : {};
    await recordActivity(tx, ctx, updated, 'stage_completed', {
      run_id: run.id,
      stage: s.name,
      model: s.model,
      ...proposals,
    });
    return { recorded };
  });
}

/** pipeline.complete: `processed` with its nodes (and markdown, title, metadata when given). */
export function completeRun(
  ctx: CapturesContext,
  tenantId: string,
  input: {
    capture_id: string;
    run_id: string;
    node_ids: string[];
    title?: string | undefined;
    markdown?: string | undefined;
    metadata?: Record<string, unknown> | undefined;
  },
): Promise<Capture> {
  return captureWrite(ctx, async (tx) => {
    const [row, run] = await heldRun(tx, tenantId, input.capture_id, input.run_id);
    const now = ctx.now();
    await updateRun(tx, run.id, { status: 'processed', finishedAt: now, error: null });
    const updated = await change(tx, ctx, row, {
      status: 'processed',
      nodeIds: input.node_ids,
      leaseUntil: null,
      error: null,
      ...(input.title ? { title: input.title } : {}),
      ...(input.markdown !== undefined ? { markdown: input.markdown } : {}),
      ...(input.metadata ? { metadata: { ...row.metadata, ...input.metadata } } : {}),
    });
    await recordActivity(tx, ctx, updated, 'processed', { run_id: run.id, node_ids: input.node_ids });
    return toCapture(updated);
  });
}

/** pipeline.fail: final → `failed` naming the stage; otherwise back to `pending` for another attempt. */
export function failRun(
  ctx: CapturesContext,
  tenantId: string,
  input: { capture_id: string; run_id: string; stage: string; error: string; final: boolean },
): Promise<Capture> {
  return captureWrite(ctx, async (tx) => {
    const [row, run] = await heldRun(tx, tenantId, input.capture_id, input.run_id);
    const error = `${input.stage}: ${input.error}`;
    if (!input.final) {
      const updated = await change(tx, ctx, row, { status: 'pending', leaseUntil: null, queuedAt: ctx.now() });
      await updateRun(tx, run.id, { status: 'queued', error });
      await recordActivity(tx, ctx, updated, 'stage_failed', {
        run_id: run.id,
        stage: input.stage,
        error: input.error,
        attempt: run.attempts,
      });
      return toCapture(updated);
    }
    await updateRun(tx, run.id, { status: 'failed', finishedAt: ctx.now(), error });
    const updated = await change(tx, ctx, row, { status: 'failed', leaseUntil: null, error });
    await recordActivity(tx, ctx, updated, 'failed', { run_id: run.id, stage: input.stage, error: input.error });
    return toCapture(updated);
  });
}

/** pipeline.stuck: every tenant's captures waiting longer than `olderThanMs`. */
export async function stuckCaptures(ctx: CapturesContext, olderThanMs: number, limit: number) {
  const rows = await waitingTooLong(ctx.db, new Date(ctx.now().getTime() - olderThanMs), limit);
  return {
    captures: rows.map((r) => ({
      tenant_id: r.tenantId,
      capture_id: r.id,
      run_id: r.runId!,
      status: r.status as 'pending' | 'processing',
    })),
  };
}

/** pipeline.waiting: runs a worker keeps in its hosts' lines count as queued now (not stuck). */
export async function runsWaiting(
  ctx: CapturesContext,
  runs: { tenant_id: string; capture_id: string; run_id: string }[],
): Promise<{ touched: number }> {
  const pairs = runs.map((r) => ({ tenantId: r.tenant_id, captureId: r.capture_id, runId: r.run_id }));
  return { touched: await markQueued(ctx.db, pairs, ctx.now()) };
}

/** pipeline.requeue: the current run again (same run id, completed stages kept), if it still waits. */
export function requeueRun(
  ctx: CapturesContext,
  tenantId: string,
  captureId: string,
  reason: QueueReason,
): Promise<{ requeued: boolean; run_id: string | null }> {
  return captureWrite(ctx, async (tx) => {
    const row = isId('capture', captureId) ? await findCapture(tx, tenantId, captureId, true) : null;
    if (!row || !row.currentRunId) return { requeued: false, run_id: null };
    const now = ctx.now();
    const waiting = row.status === 'pending' || (row.status === 'processing' && !leaseLive(row, now));
    if (!waiting) return { requeued: false, run_id: row.currentRunId };
    const updated = await change(tx, ctx, row, { status: 'pending', leaseUntil: null, queuedAt: now });
    await updateRun(tx, row.currentRunId, { status: 'queued' });
    await recordActivity(tx, ctx, updated, 'requeued', { run_id: row.currentRunId, reason, was: row.status });
    await announceRun(tx, ctx, updated, row.currentRunId, reason);
    return { requeued: true, run_id: row.currentRunId };
  });
}
