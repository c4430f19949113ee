import { conflict, isId, notFound, TOPICS, type Identity, type ParaJob, type ParaJobEvent } from '@kg/contracts';
import { enqueueEvent, newEventId } from '@kg/bus';
import { iso, isoOrNull, newId } from '@kg/db';
import { findItem, listItems, type ItemRow } from '../store/items';
import { advanceJob, findJob, insertJob, setJobStatus, staleJobs, touchJob, type JobRow } from '../store/jobs';
import { outbox } from '../store/schema';
import { systemIdentity } from './associations';
import type { ParaContext } from './context';
import type { ScoringItem } from './scorer';

/**
 * Reclassification. A job scores the tenant's orphan candidates (nodes never given a
 * PARA link, not dismissed) against active items and assigns each candidate whose best
 * score reaches THRESHOLD to that item, recorded as `system:reclassify` with its score.
 * A person's assignment is never changed: assigned nodes are not candidates.
 */
export const THRESHOLD = 0.3;
/** Candidates per batch: one scoring call, one assignment write, one progress update. */
export const BATCH = 50;

export const toJob = (j: JobRow): ParaJob => ({
  id: j.id,
  kind: j.kind,
  para_item_id: j.paraItemId,
  status: j.status,
  queued: j.queued,
  done: j.done,
  assigned: j.assigned,
  created_at: iso(j.createdAt),
  updated_at: iso(j.updatedAt),
  finished_at: isoOrNull(j.finishedAt),
});

const jobEvent = (j: JobRow, now: Date): ParaJobEvent => ({
  id: newEventId(),
  type: 'job.queued',
  tenant_id: j.tenantId,
  occurred_at: now.toISOString(),
  data: { job_id: j.id },
});

/** Records a job and its `job.queued` event in one transaction; the relay publishes it. */
export async function startJob(
  ctx: ParaContext,
  identity: Identity,
  kind: JobRow['kind'],
  paraItemId: string | null,
): Promise<JobRow> {
  const queued = await ctx.scorer.count(identity);
  const job = await ctx.db.transaction(async (tx) => {
    const row = await insertJob(tx, { id: newId('paraJob'), tenantId: identity.tenantId, kind, paraItemId, queued });
    await enqueueEvent(tx, outbox, TOPICS.paraJobs, jobEvent(row, ctx.now()));
    return row;
  });
  ctx.afterCommit();
  return job;
}

/** POST /para/:id/match: only an active item is matched (409 for completed or archived ones). */
export async function matchItem(ctx: ParaContext, identity: Identity, id: string): Promise<ParaJob> {
  const item = isId('para', id) ? await findItem(ctx.db, identity.tenantId, id) : null;
  if (!item) throw notFound('PARA item');
  if (item.status !== 'active') throw conflict(`Only active items are matched; this one is ${item.status}`);
  return toJob(await startJob(ctx, identity, 'match', item.id));
}

/** After POST /para: a job for the new item. Its failure never fails the creation (a rescan covers it). */
export async function startForNewItem(ctx: ParaContext, identity: Identity, item: ItemRow): Promise<void> {
  try {
    await startJob(ctx, identity, 'item_created', item.id);
  } catch (err) {
    ctx.logger.warn({ err, itemId: item.id }, 'reclassification of a new item not started');
  }
}

export async function getJob(ctx: ParaContext, tenantId: string, id: string): Promise<ParaJob> {
  const job = isId('paraJob', id) ? await findJob(ctx.db, tenantId, id) : null;
  if (!job) throw notFound('Job');
  return toJob(job);
}

const scoringText = (i: ItemRow) => (i.description ? `${i.label}. ${i.description}` : i.label);

async function itemsFor(ctx: ParaContext, job: JobRow): Promise<ScoringItem[]> {
  const active = job.paraItemId
    ? [await findItem(ctx.db, job.tenantId, job.paraItemId)].filter((i): i is ItemRow => i?.status === 'active')
    : await listItems(ctx.db, job.tenantId, { status: 'active' });
  return active.map((i) => ({ id: i.id, text: scoringText(i) }));
}

/**
 * Runs (or resumes) a job from its record: each batch scores the candidates after the
 * cursor, assigns those at or above THRESHOLD, then records the new cursor and counts.
 * Idempotent: a finished job is left alone, and a batch repeated after a crash assigns
 * nothing twice (assigned nodes are no longer candidates). Yields between batches.
 */
export async function runJob(ctx: ParaContext, tenantId: string, jobId: string): Promise<void> {
  const job = await findJob(ctx.db, tenantId, jobId);
  if (!job || job.status === 'done' || job.status === 'failed') return;
  await setJobStatus(ctx.db, job.id, 'running', ctx.now());
  const identity = systemIdentity(tenantId);
  const items = await itemsFor(ctx, job);
  let cursor = job.cursor;
  while (items.length > 0) {
    const page = await ctx.scorer.page(identity, items, cursor, BATCH);
    if (page.nodes.length === 0) break;
    const picks = page.nodes
      .filter((n) => n.para_item_id !== null && n.score >= THRESHOLD)
      .map((n) => ({ node_id: n.id, para_item_id: n.para_item_id!, score: n.score }));
    const { assigned } = picks.length
      ? await ctx.graph.as(identity).assignments.autoAssign({ assignments: picks })
      : { assigned: 0 };
    cursor = page.nodes.at(-1)!.id;
    await advanceJob(ctx.db, job.id, cursor, page.nodes.length, assigned, ctx.now());
    if (!page.next) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await setJobStatus(ctx.db, job.id, 'done', ctx.now());
}

/**
 * Re-publishes unfinished jobs nobody has advanced for `staleMs` (their runner died with
 * its process, e.g. the in-process bus of the embedded mode); the consumer resumes them.
 */
export async function requeueStaleJobs(ctx: ParaContext, staleMs = 60_000, limit = 100): Promise<number> {
  const stale = await staleJobs(ctx.db, new Date(ctx.now().getTime() - staleMs), limit);
  for (const job of stale) {
    await ctx.db.transaction(async (tx) => {
      await touchJob(tx, job.id, ctx.now());
      await enqueueEvent(tx, outbox, TOPICS.paraJobs, jobEvent(job, ctx.now()));
    });
  }
  if (stale.length) ctx.afterCommit();
  return stale.length;
}
